package sqlite

import (
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var embedded embed.FS

// migrationFS holds the numbered schema migrations, NNNN_name.sql.
var migrationFS = mustSub(embedded, "migrations")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads every *.sql file of src, which must be named
// NNNN_name.sql with distinct positive numbers, sorted by number.
func loadMigrations(src fs.FS) ([]migration, error) {
	names, err := fs.Glob(src, "*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	seen := map[int]string{}
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql with NNNN > 0", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", prev, name, v)
		}
		seen[v] = name
		body, err := fs.ReadFile(src, name)
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", name, err)
		}
		ms = append(ms, migration{version: v, name: path.Base(name), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrate applies, in order, every migration newer than the database's
// PRAGMA user_version, each in its own transaction together with the
// version bump, so a failing step leaves the database at the previous
// version. A database newer than the newest migration is refused rather than
// misread. On a database that already has a schema, progress is told of
// the migrations to apply (StepMigrations, Done of Total migrations), as
// some rebuild indexes and count every contract (a few minutes at a
// million contracts).
func migrate(db *sql.DB, src fs.FS, progress func(Progress)) error {
	ms, err := loadMigrations(src)
	if err != nil {
		return err
	}
	var current int
	if err := db.QueryRow("PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if n := len(ms); n > 0 && current > ms[n-1].version {
		return fmt.Errorf("database schema version %d is newer than this program's %d", current, ms[n-1].version)
	}
	var pending int64
	for _, m := range ms {
		if m.version > current {
			pending++
		}
	}
	if current == 0 || pending == 0 {
		progress = func(Progress) {}
	}
	var done int64
	progress(Progress{Step: StepMigrations, Total: pending})
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		tx, err := db.Begin()
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if _, err := tx.Exec(m.sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		// PRAGMA takes no parameters; the version is an integer we parsed.
		if _, err := tx.Exec("PRAGMA user_version = " + strconv.Itoa(m.version)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: set version: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: commit: %w", m.name, err)
		}
		done++
		progress(Progress{Step: StepMigrations, Done: done, Total: pending})
	}
	return nil
}
