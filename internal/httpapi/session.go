package httpapi

import (
	"container/list"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"
)

// Web sign-in sessions. A session lasts while it is used at least once
// every sessionIdleTimeout, and never longer than sessionMaxLifetime after
// the sign-in, so a cookie left in a browser stops working on its own.
// At most maxSessions are kept: a flood of sign-ins evicts the oldest
// sessions instead of growing memory.
const (
	sessionIdleTimeout = 12 * time.Hour
	sessionMaxLifetime = 7 * 24 * time.Hour
	maxSessions        = 10_000
	// sessionIDBytes is the session id's randomness: 256 bits.
	sessionIDBytes = 32
	// sessionSweepInterval is how often creating a session also drops the
	// expired ones.
	sessionSweepInterval = 10 * time.Minute
)

// sessionIDLen is the length of a session id in the cookie, base64url
// without padding.
var sessionIDLen = base64.RawURLEncoding.EncodedLen(sessionIDBytes)

// sessionKey is what the store keeps of a session id: its SHA-256, so that
// the ids themselves are never held in memory after they are sent.
type sessionKey [sha256.Size]byte

type session struct {
	key      sessionKey
	created  time.Time
	lastSeen time.Time
}

// sessionStore keeps the web sessions in memory. Sessions end when the
// process does; the bearer token still works. It is safe for concurrent
// use.
type sessionStore struct {
	now func() time.Time
	max int

	mu        sync.Mutex
	byKey     map[sessionKey]*list.Element // of *session
	order     *list.List                   // oldest sign-in first
	lastSweep time.Time
}

func newSessionStore(now func() time.Time, max int) *sessionStore {
	return &sessionStore{now: now, max: max, byKey: make(map[sessionKey]*list.Element), order: list.New()}
}

// create starts a session and returns its id, the cookie's value.
func (st *sessionStore) create() string {
	b := make([]byte, sessionIDBytes)
	rand.Read(b) // never fails; see crypto/rand.Read
	id := base64.RawURLEncoding.EncodeToString(b)
	now := st.now()

	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.byKey) >= st.max || now.Sub(st.lastSweep) >= sessionSweepInterval {
		st.sweep(now)
	}
	for len(st.byKey) >= st.max {
		st.remove(st.order.Front())
	}
	s := &session{key: sha256.Sum256([]byte(id)), created: now, lastSeen: now}
	st.byKey[s.key] = st.order.PushBack(s)
	return id
}

// valid reports whether id names a live session, and if so extends its
// idle timeout.
func (st *sessionStore) valid(id string) bool {
	if len(id) != sessionIDLen {
		return false
	}
	key := sha256.Sum256([]byte(id))
	now := st.now()

	st.mu.Lock()
	defer st.mu.Unlock()
	e, ok := st.byKey[key]
	if !ok {
		return false
	}
	s := e.Value.(*session)
	if expired(s, now) {
		st.remove(e)
		return false
	}
	s.lastSeen = now
	return true
}

// delete ends the session id names, if any.
func (st *sessionStore) delete(id string) {
	key := sha256.Sum256([]byte(id))
	st.mu.Lock()
	defer st.mu.Unlock()
	if e, ok := st.byKey[key]; ok {
		st.remove(e)
	}
}

// count is the number of sessions kept, expired ones included until a sweep.
func (st *sessionStore) count() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.byKey)
}

func expired(s *session, now time.Time) bool {
	return now.Sub(s.lastSeen) >= sessionIdleTimeout || now.Sub(s.created) >= sessionMaxLifetime
}

// sweep drops expired sessions. The caller holds mu.
func (st *sessionStore) sweep(now time.Time) {
	st.lastSweep = now
	for e := st.order.Front(); e != nil; {
		next := e.Next()
		if expired(e.Value.(*session), now) {
			st.remove(e)
		}
		e = next
	}
}

// remove drops one session. The caller holds mu.
func (st *sessionStore) remove(e *list.Element) {
	delete(st.byKey, e.Value.(*session).key)
	st.order.Remove(e)
}
