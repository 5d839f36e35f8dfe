#!/usr/bin/env bash
# neo4j-test-server.sh {start|stop|env|status}
#
# Runs a throwaway Neo4j 5.26 LTS community server for ContractGraph's tests.
# The server is the embedded community edition resolved from Maven Central
# with `mvn` (cached in ~/.m2) and started by a small Java launcher
# (scripts/neo4j-test-server/Launcher.java) with a Bolt connector on
# 127.0.0.1, a fresh data directory and a real password.
#
#   scripts/neo4j-test-server.sh start   # resolve, compile, start, wait for Bolt
#   eval "$(scripts/neo4j-test-server.sh env)"   # export NEO4J_URI, NEO4J_USERNAME, ...
#   go test ./internal/graph/neo4j/...
#   scripts/neo4j-test-server.sh stop    # stop the server, delete its data
#
# Settings (environment):
#   NEO4J_TEST_PORT      Bolt port (default 17687)
#   NEO4J_TEST_PASSWORD  password of user neo4j (default contractgraph-test)
#   NEO4J_TEST_STATE     state directory for pid/log files (default $TMPDIR/contractgraph-neo4j-test)
#   NEO4J_TEST_TIMEOUT   seconds to wait for Bolt once the jars are resolved (default 180)
#   NEO4J_TEST_HEAP      JVM heap (default 1g)
#   NEO4J_TEST_PAGECACHE page cache in MiB (default 512; a 100k-contract
#                        store is ~2 GiB on disk: give it 2048 and a 3g heap)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
src="$here/neo4j-test-server"
port="${NEO4J_TEST_PORT:-17687}"
password="${NEO4J_TEST_PASSWORD:-contractgraph-test}"
state="${NEO4J_TEST_STATE:-${TMPDIR:-/tmp}/contractgraph-neo4j-test}"
timeout="${NEO4J_TEST_TIMEOUT:-180}"
heap="${NEO4J_TEST_HEAP:-1g}"
pagecache="${NEO4J_TEST_PAGECACHE:-512}"
pidfile="$state/server.pid"
logfile="$state/server.log"
homefile="$state/home"
dependency_plugin="org.apache.maven.plugins:maven-dependency-plugin:2.8"

log() { echo "neo4j-test-server: $*" >&2; }
die() { log "error: $*"; exit 1; }

running_pid() {
	[ -f "$pidfile" ] || return 1
	local pid
	pid="$(cat "$pidfile")"
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && { echo "$pid"; return 0; }
	return 1
}

# build resolves the Neo4j jars with Maven and compiles the launcher into a
# cache directory keyed by the pom and launcher contents; prints that directory.
build() {
	command -v mvn >/dev/null || die "mvn not found (install Maven 3.8+)"
	command -v javac >/dev/null || die "javac not found (install a JDK 17)"
	local key cache
	key="$(cat "$src/pom.xml" "$src/Launcher.java" | sha256sum | cut -c1-16)"
	cache="${XDG_CACHE_HOME:-$HOME/.cache}/contractgraph/neo4j-test-server/$key"
	if [ ! -f "$cache/ok" ]; then
		mkdir -p "$cache/classes"
		log "resolving Neo4j from Maven Central (first run downloads ~150 MB into ~/.m2)"
		if ! mvn -B -q -f "$src/pom.xml" "$dependency_plugin:build-classpath" \
			-Dmdep.outputFile="$cache/classpath.txt" >"$cache/mvn.log" 2>&1; then
			cat "$cache/mvn.log" >&2
			die "mvn could not resolve org.neo4j:neo4j (see output above)"
		fi
		javac -nowarn -cp "$(cat "$cache/classpath.txt")" -d "$cache/classes" "$src/Launcher.java" \
			|| die "compiling Launcher.java failed"
		touch "$cache/ok"
	fi
	echo "$cache"
}

bolt_open() {
	# Bolt answers once the port accepts connections; the launcher prints its
	# ready line only after the password is set, so both are required.
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && grep -q "ready on bolt" "$logfile"
}

start() {
	if pid="$(running_pid)"; then
		log "already running (pid $pid) on bolt://127.0.0.1:$port"
		return 0
	fi
	command -v java >/dev/null || die "java not found (install a JDK 17)"
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		die "port $port is already in use; set NEO4J_TEST_PORT"
	fi
	local cache home began
	began=$(date +%s)
	cache="$(build)"
	mkdir -p "$state"
	home="$(mktemp -d "${TMPDIR:-/tmp}/contractgraph-neo4j-data.XXXXXX")"
	echo "$home" >"$homefile"
	: >"$logfile"
	nohup java -Xms256m -Xmx"$heap" -XX:+UseSerialGC \
		-cp "$cache/classes:$(cat "$cache/classpath.txt")" \
		Launcher "$home" "$port" "$password" "$pagecache" >>"$logfile" 2>&1 </dev/null &
	echo $! >"$pidfile"
	local pid=$!
	local deadline=$(($(date +%s) + timeout))
	until bolt_open; do
		if ! kill -0 "$pid" 2>/dev/null; then
			tail -50 "$logfile" >&2
			rm -f "$pidfile"
			die "server exited during start-up (log above, full log $logfile)"
		fi
		if [ "$(date +%s)" -ge "$deadline" ]; then
			tail -50 "$logfile" >&2
			stop
			die "Bolt did not answer on 127.0.0.1:$port within ${timeout}s"
		fi
		sleep 1
	done
	log "ready on bolt://127.0.0.1:$port (pid $pid, data $home, $(($(date +%s) - began))s)"
}

stop() {
	local pid
	if pid="$(running_pid)"; then
		kill -TERM "$pid"
		for _ in $(seq 1 60); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 1
		done
		if kill -0 "$pid" 2>/dev/null; then
			log "pid $pid did not stop within 60s; killing"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		log "stopped (pid $pid)"
	else
		log "not running"
	fi
	rm -f "$pidfile"
	if [ -f "$homefile" ]; then
		rm -rf "$(cat "$homefile")"
		rm -f "$homefile"
	fi
}

env_vars() {
	printf 'export NEO4J_URI=%q\n' "bolt://127.0.0.1:$port"
	printf 'export NEO4J_USERNAME=%q\n' "neo4j"
	printf 'export NEO4J_PASSWORD=%q\n' "$password"
	printf 'export NEO4J_DATABASE=%q\n' "neo4j"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
env) env_vars ;;
status)
	if pid="$(running_pid)"; then echo "running (pid $pid) on bolt://127.0.0.1:$port"; else echo "not running"; exit 1; fi
	;;
*)
	echo "usage: $0 {start|stop|env|status}" >&2
	exit 2
	;;
esac
