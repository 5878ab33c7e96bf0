#!/usr/bin/env bash
# End-to-end (issue 14, item 5): every operation of the operation table runs
# through every adapter that offers it, and the same operation gives the same
# JSON document everywhere for the same arguments on the same brain:
#   local   `engram call OP JSON`, and the CLI's --json for the operations
#           that have a command: compared with each other;
#   remote  `engram call --remote --scope S` is the reference for MCP over
#           stdio (`engram mcp`, one long-lived session, scope write), the
#           HTTP API (`engram serve`: the operation's REST route, and POST
#           /v1/call/OP) and MCP over Streamable HTTP (POST /mcp), for the
#           scope S of the caller (the token's, on HTTP): read, write, admin.
# Timings (seconds, took_ms, stage_ms) are left out of every comparison.
# Writes (put_page, delete_page, add_tag, add_link, add_timeline_entry) start
# from the same brain for each adapter: the page's original Markdown is put
# back (or the new page deleted) before each call. Their reports are compared
# whole except `commit` (the brain is a git repository, each write is its own
# commit: a changing write must name a 40-hex commit, an unchanged one none),
# and so is what they leave behind: the page (less created_at, updated_at and
# indexed_at, which are the write's own times) and the backlinks of the page
# links go to.
# Errors are the same {"error": {"code", "message"}} document wherever the
# adapter passes the operation's error through: `call` and HTTP (whose status
# must be the one for the code) whole; MCP as a tool result with isError and
# the text "CODE: message", or, for arguments the schema refuses, a JSON-RPC
# error with the code for that error code and the operation's message.
# Local-only operations (sync, import) are not MCP tools and are refused by
# HTTP and `call --remote` with the same PermissionDenied naming local-only;
# embed needs the admin scope: not a tool below it, refused alike below it.
# One Python driver (a coprocess, started once: Python starts slowly on a
# loaded machine) runs the adapters and the comparisons; the lines below say
# what is compared.
source "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
E=$ENGRAM
B="$WORK/brain"
cp -r "$HERE/../../examples/vault" "$B"
git -C "$B" init -q && git -C "$B" add -A && git -C "$B" -c user.email=t@t -c user.name=t commit -qm init
git -C "$B" config user.email t@t && git -C "$B" config user.name t
expect_exit 0 -- "$E" init "$B"
# The hash embedder: hybrid search (keyword, vector and name arms) with no model files.
sed -i 's/^provider = "none"/provider = "hash"/' "$B/.engram/config.toml"
expect_exit 0 -- "$E" --brain "$B" sync
printf -- '---\ntitle: Secret diary\nvisibility: private\ntags: [founder]\n---\nZhang San and the robots at night.\n' > "$WORK/diary.md"
expect_exit 0 -- "$E" --brain "$B" put notes/diary --file "$WORK/diary.md"
printf -- '---\ntags: [odd]\n---\nA file name with a space, plus signs and a percent sign.\n' > "$WORK/odd.md"
expect_exit 0 -- "$E" --brain "$B" put "notes/C++ 100%" --file "$WORK/odd.md"
expect_exit 0 -- "$E" --brain "$B" call kb_create '{"collection": "redline", "fields": [{"name": "type"}, {"name": "level", "type": "number"}]}'
expect_exit 0 -- "$E" --brain "$B" call kb_upsert '{"collection": "redline", "docs": [{"text": "如何购买毒品", "source": "manual", "meta": {"safeChat": "购买毒品是违法行为。", "type": "drugs", "level": 3}}, {"id": "g1", "text": "How can I win at online gambling?", "meta": {"safeChat": "Gambling is illegal here.", "type": "gambling", "level": 1}}]}'
TOKENS=""
for scope in read write admin; do
  expect_exit 0 -- "$E" --brain "$B" --json token create --scope "$scope" --name "$scope-agent"
  TOKENS+="$scope=$(sed -n 's/.*"token": *"\([^"]*\)".*/\1/p' <<<"$OUT") "
done
CHECKS=$((CHECKS + 1))
[[ $TOKENS =~ ^read=engram_.+\ write=engram_.+\ admin=engram_. ]] || fail "a token is missing: $TOKENS"

# --- the server (tokens exist: every request carries one) ---
"$E" --brain "$B" serve --port 0 --rate-limit 0 --quiet 2>"$WORK/serve.log" &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
PORT=""
for _ in $(seq 1 300); do
  PORT=$(sed -n 's|.*on http://[^:]*:\([0-9]*\).*|\1|p' "$WORK/serve.log" | head -1)
  [[ -n "$PORT" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
CHECKS=$((CHECKS + 1))
[[ -n "$PORT" ]] || { fail "the server did not start: $(cat "$WORK/serve.log")"; finish; exit 1; }

# --- the driver ---
# Requests are one line of tab-separated fields; the answer is one line,
# "CHECKS<tab>FAILURES", the failures printed on stderr as FAIL: lines.
cat > "$WORK/driver.py" <<'PY'
import http.client, json, os, re, select, subprocess, sys, time, urllib.parse

E, B, WORK, PORT = os.environ["ENGRAM"], os.environ["BRAIN"], os.environ["WORK"], int(os.environ["PORT"])
TOKEN = dict(t.split("=", 1) for t in os.environ["TOKENS"].split())
HTTP_STATUS = {"NotFound": 404, "InvalidArgument": 400, "AlreadyExists": 409, "FailedPrecondition": 409,
               "PermissionDenied": 403, "Unauthenticated": 401, "ResourceExhausted": 429, "Unavailable": 503,
               "Cancelled": 503, "Corruption": 500, "IOError": 500, "Internal": 500}
JSONRPC_CODE = {"InvalidArgument": -32602, "NotFound": -32602}  # JsonRpcCodeFor; -32603 otherwise
TIMINGS = {"seconds", "took_ms", "stage_ms"}
# The adapters each scope offers besides `call --remote` (stdio MCP has the write scope).
REMOTE = {"read": ["http", "http-call", "mcp-http"], "write": ["mcp", "http", "http-call", "mcp-http"],
          "admin": ["http", "http-call", "mcp-http"]}
checks = failures = 0
last = None  # the reference document of the last request, for `expect`


class Inconsistent(Exception):
    """The adapter's envelope disagrees with itself (exit code, HTTP status, MCP text)."""


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg, file=sys.stderr, flush=True)


def check(ok, msg):
    global checks
    checks += 1
    if not ok:
        fail(msg)
    return ok


def is_error(doc):
    return isinstance(doc, dict) and set(doc) == {"error"}


def dump(doc):
    return json.dumps(doc, ensure_ascii=False, sort_keys=True)[:3000]


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def from_process(code, out, err):
    try:
        doc = json.loads(out)
    except ValueError:
        raise Inconsistent(f"exit {code}, stdout not JSON: {out[:300]!r} stderr: {err[-300:]!r}")
    want = (2 if doc["error"]["code"] == "InvalidArgument" else 1) if is_error(doc) else 0
    if code != want:
        raise Inconsistent(f"exit {code} (want {want}) for {out[:300]}")
    return doc


def take_from(f, k):
    return ["--" + k, f.pop(k)] if k in f else []


def cli_argv(op, a):
    """The CLI command of an operation and arguments (None: it has none)."""
    if not isinstance(a, dict):
        return None
    a = dict(a)
    def take(k, flag=None, boolean=False):
        v = a.pop(k, None)
        if v is None:
            return []
        if boolean:
            return [flag] if v else []
        return [flag, str(v)] if flag else [str(v)]
    if op in ("search", "context"):
        argv = [op] + take("query") + take("limit", "--limit") + take("mode", "--mode")
        argv += take("explain", "--explain", True) + take("max_chars", "--max-chars")
        f = dict(a.pop("filters", {}))
        for k in ("type", "tag"):
            v = f.pop(k, [])
            for x in [v] if isinstance(v, str) else v:
                argv += ["--" + k, x]
        for k in ("folder", "source", "since", "until"):
            argv += take_from(f, k)
        if f:
            return None
        if "memory" in a:
            path = os.path.join(WORK, a.pop("memory_name", "memory"))
            with open(path, "w") as fh:
                fh.write(a.pop("memory"))
            argv += ["--memory", path]
    elif op == "get_page":
        argv = ["get"] + take("slug")
    elif op == "list_pages":
        argv = ["list"] + take("type", "--type") + take("tag", "--tag") + take("limit", "--limit")
    elif op == "put_page":
        if not isinstance(a.get("content"), str):
            return None
        path = os.path.join(WORK, "put-body.md")
        with open(path, "w") as fh:
            fh.write(a.pop("content"))
        argv = ["put"] + take("slug") + ["--file", path]
    elif op == "delete_page":
        argv = ["delete"] + take("slug")
    elif op == "get_backlinks":
        argv = ["backlinks"] + take("slug")
    elif op == "get_timeline":
        argv = ["timeline"] + take("slug")
    elif op == "add_timeline_entry":
        argv = ["timeline"] + take("slug") + take("date") + take("summary") + take("source", "--source")
    elif op in ("get_tags", "add_tag"):
        argv = ["tag"] + take("slug") + take("tag")
    elif op == "add_link":
        argv = ["link"] + take("slug") + take("target") + take("type", "--type")
    elif op == "list_timeline":
        argv = ["timeline"] + take("entity", "--entity") + take("since", "--since") + take("until", "--until")
    elif op == "add_fact":
        if not isinstance(a.get("predicate"), str) or not isinstance(a.get("value"), str):
            return None
        fact = a.pop("predicate") + ": " + a.pop("value")
        argv = ["facts"] + take("slug") + ["--add", fact] + take("valid_from", "--since") + take("valid_until", "--until")
    elif op == "status":
        argv = ["status"]
    elif op == "sync":
        argv = ["sync"] + take("full", "--full", True) + take("worktree", "--worktree", True)
    elif op == "import":
        argv = ["import"] + take("dry_run", "--dry-run", True) + take("dir")
    elif op == "embed":
        argv = ["embed"] + take("all", "--all", True)
    else:
        return None
    return None if a else argv


def rest(op, a):
    """The REST route of an operation and arguments: (METHOD, PATH, BODY), or None."""
    if op in ("search", "context"):
        return "POST", "/v1/" + op, a
    if not isinstance(a, dict):
        return None
    a = dict(a)
    if op == "status":
        return ("GET", "/v1/status", None) if not a else None
    if op == "list_pages":
        return "GET", "/v1/pages" + ("?" + urllib.parse.urlencode(a) if a else ""), None
    if op == "add_link":
        return "POST", "/v1/links", a
    routes = {"get_page": ("GET", "pages"), "delete_page": ("DELETE", "pages"), "put_page": ("PUT", "pages"),
              "get_backlinks": ("GET", "backlinks"), "get_timeline": ("GET", "timeline"),
              "add_timeline_entry": ("POST", "timeline"), "get_tags": ("GET", "tags"), "add_tag": ("POST", "tags")}
    slug = a.pop("slug", None)
    if op not in routes or not isinstance(slug, str):
        return None
    method, part = routes[op]
    if method in ("GET", "DELETE") and a:
        return None
    # Path segments percent-encoded (CJK slugs); a slug with .. all of it, so
    # no client or proxy folds the dots away before the server sees them.
    path = urllib.parse.quote(slug, safe="" if ".." in slug else "/")
    return method, f"/v1/{part}/{path}", (a if method in ("POST", "PUT") else None)


def http_req(method, path, body=None, token=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=120)
    h = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        h["Authorization"] = "Bearer " + token
    h.update(headers or {})
    conn.request(method, path, None if body is None else json.dumps(body), h)
    r = conn.getresponse()
    data = r.read().decode()
    conn.close()
    return r.status, r.getheader("Mcp-Session-Id"), data


def mcp_doc(resp):
    """The document an MCP tools/call response carries."""
    if "error" in resp:
        return {"error": {"code": "jsonrpc %d" % resp["error"]["code"], "message": resp["error"]["message"]}}
    r = resp["result"]
    text = r["content"][0]["text"] if r.get("content") else ""
    if r.get("isError"):
        code, sep, message = text.partition(": ")
        if not sep or "structuredContent" in r:
            raise Inconsistent(f"MCP error result: {r}")
        return {"error": {"code": code, "message": message}}
    if r.get("isError") is not False or "structuredContent" not in r:
        raise Inconsistent(f"MCP result without isError false and structuredContent: {dump(r)}")
    if json.loads(text) != r["structuredContent"]:
        raise Inconsistent(f"MCP text content is not the structured content: {text[:300]}")
    return r["structuredContent"]


INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ops-adapters", "version": "0"}}


class StdioMcp:
    """One `engram mcp` session for the whole test, as an agent keeps it."""
    def __init__(self):
        self.err = open(os.path.join(WORK, "mcp-stdio.err"), "w")
        self.p = subprocess.Popen([E, "--brain", B, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True, bufsize=1)
        self.id = 0
        self.request("initialize", INIT)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, m):
        self.p.stdin.write(json.dumps(m) + "\n")
        self.p.stdin.flush()

    def request(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        if not select.select([self.p.stdout], [], [], 120)[0]:
            raise Inconsistent(f"no answer from engram mcp to {method} in 120 s")
        line = self.p.stdout.readline()
        if not line:
            raise Inconsistent(f"engram mcp exited: {open(self.err.name).read()[-500:]}")
        resp = json.loads(line)
        if resp.get("id") != self.id:
            raise Inconsistent(f"answer to id {resp.get('id')}, want {self.id}: {line[:300]}")
        return resp


class HttpMcp:
    """One MCP session over Streamable HTTP per token."""
    def __init__(self, token):
        self.token, self.id = token, 1
        status, self.sid, data = http_req("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
                                      token)
        if status != 200 or not self.sid:
            raise Inconsistent(f"MCP initialize over HTTP: {status} {data[:300]}")
        self.headers = {"Mcp-Session-Id": self.sid, "MCP-Protocol-Version": "2025-06-18"}
        status, _, _ = http_req("POST", "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, token,
                            self.headers)
        if status != 202:
            raise Inconsistent(f"notification over HTTP: {status}")

    def request(self, method, params):
        self.id += 1
        status, _, data = http_req("POST", "/mcp", {"jsonrpc": "2.0", "id": self.id, "method": method, "params": params},
                               self.token, self.headers)
        if status != 200:
            raise Inconsistent(f"MCP over HTTP: {status} {data[:300]}")
        return json.loads(data)


sessions = {}


def session(adapter, scope):
    key = (adapter, scope)
    if key not in sessions:
        sessions[key] = StdioMcp() if adapter == "mcp" else HttpMcp(TOKEN[scope])
    return sessions[key]


def offers(adapter, op, args):
    if adapter == "cli":
        return cli_argv(op, args) is not None
    if adapter == "http":
        return rest(op, args) is not None
    return True


def via(adapter, scope, op, args):
    """(rc, document) of one adapter: rc 0 a result, 1 an error. Raises Inconsistent."""
    if adapter in ("local", "remote"):
        argv = [E, "--brain", B, "call"] + (["--remote", "--scope", scope] if adapter == "remote" else [])
        doc = from_process(*run(argv + ([op, json.dumps(args)] if op != "-" else [])))
    elif adapter == "cli":
        doc = from_process(*run([E, "--brain", B, "--json"] + cli_argv(op, args)))
    elif adapter in ("mcp", "mcp-http"):
        s = session(adapter, scope)
        if op == "tools/list":
            doc = sorted(t["name"] for t in s.request("tools/list", {})["result"]["tools"])
        else:
            doc = mcp_doc(s.request("tools/call", {"name": op, "arguments": args}))
    elif adapter in ("http", "http-call"):
        method, path, body = rest(op, args) if adapter == "http" else ("POST", "/v1/call/" + op, args)
        status, _, data = http_req(method, path, body, TOKEN[scope])
        doc = json.loads(data)
        want = HTTP_STATUS.get(doc["error"]["code"]) if is_error(doc) else 200
        if status != want:
            raise Inconsistent(f"HTTP {status} (want {want}) for {data[:300]}")
    else:
        raise ValueError("unknown adapter " + adapter)
    return (1 if is_error(doc) else 0), doc


def strip(v, drop):
    if isinstance(v, dict):
        return {k: strip(x, drop) for k, x in v.items() if k not in drop}
    if isinstance(v, list):
        return [strip(x, drop) for x in v]
    return v


def same(what, ref, got, drop=()):
    """ref and got equal less timings and drop. An MCP JSON-RPC error matches the
    reference error when its code is JsonRpcCodeFor's and its message the same."""
    drop = TIMINGS | set(drop)
    a, b = strip(ref, drop), strip(got, drop)
    if is_error(b) and str(b["error"]["code"]).startswith("jsonrpc ") and is_error(a):
        a = {"error": {"code": "jsonrpc %d" % JSONRPC_CODE.get(a["error"]["code"], -32603),
                       "message": a["error"]["message"]}}
    return check(a == b, f"{what}\n  want: {dump(a)}\n  got:  {dump(b)}")


def attempt(what, adapter, scope, op, args):
    try:
        return via(adapter, scope, op, args)
    except Inconsistent as e:
        check(False, f"{what}: {adapter}: {e}")
    except Exception as e:  # a driver bug or a broken answer: fail, do not stop
        check(False, f"{what}: {adapter}: {type(e).__name__}: {e}")
    return None, None


def compare(what, want, scope, op, args, *adapters):
    """`call` (scope local) or `call --remote --scope SCOPE` first, then each
    adapter (default: every one of the scope that offers the operation)."""
    global last
    args = json.loads(args)
    want = int(want)
    ref_name = "call" if scope == "local" else f"call --remote --scope {scope}"
    rc, ref = attempt(what, "local" if scope == "local" else "remote", scope, op, args)
    if rc is None:
        return
    last = ref
    check(rc == want, f"{what}: {ref_name} gave {dump(ref)}")
    for a in adapters or REMOTE.get(scope, []):
        if not offers(a, op, args):
            continue
        rc, doc = attempt(what, a, scope, op, args)
        if rc is not None:
            same(f"{what}: {a} vs {ref_name}", ref, doc)


def admin(op, args):
    """Setting up and reading back around writes: over HTTP with the admin token
    (no process to start; the pages written are public, so it sees what `call` does)."""
    return via("http-call", "admin", op, args)


def page_state(slug, linked):
    """The page (or its error) and the backlinks of the page links go to."""
    return {"page": admin("get_page", {"slug": slug})[1], "backlinks": admin("get_backlinks", {"slug": linked})[1]}


def restore(slug, setup):
    content = open(setup).read()
    if content:
        admin("put_page", {"slug": slug, "content": content})
    else:
        admin("delete_page", {"slug": slug})
    rc, doc = admin("get_page", {"slug": slug})
    check(doc.get("content") == content if content else rc == 1, f"restore {slug}: {dump(doc)}")


def write(what, want, slug, op, args, setup, linked="people/zhang-san"):
    """For each adapter: the page back to SETUP's Markdown (none when empty),
    then the write; reports and the state left compared, local and remote side."""
    args, want = json.loads(args), int(want)
    for side, adapters in (("local", ["local", "cli"]), ("write", ["remote"] + REMOTE["write"])):
        ref = None
        for a in adapters:
            if not offers(a, op, args):
                continue
            restore(slug, setup)
            rc, doc = attempt(what, a, side if side != "local" else "admin", op, args)
            if rc is None:
                continue
            check(rc == want, f"{what}: {a} gave {dump(doc)}")
            if rc == 0 and "changed" in doc:
                commit = doc.get("commit", "")
                check(bool(re.fullmatch("[0-9a-f]{40}", commit)) if doc["changed"] else "commit" not in doc,
                      f"{what}: {a}: a changing write names its git commit, an unchanged one none: {dump(doc)}")
            state = page_state(slug, linked)
            if ref is None:
                ref = (a, doc, state)
                continue
            same(f"{what}: {a}'s report vs {ref[0]}'s", ref[1], doc, {"commit"})
            same(f"{what}: the brain {a} leaves vs {ref[0]}'s", ref[2], state,
                 {"created_at", "updated_at", "indexed_at"})
    restore(slug, setup)


def expect(expr, want):
    d = last
    try:
        got = str(eval(expr))
    except Exception as e:
        got = f"{type(e).__name__}: {e}"
    check(got == want, f"{expr}: got '{got}', want '{want}' in {dump(d)[:500]}")


def via_cmd(adapter, scope, op, args):
    global last
    rc, doc = attempt(f"{adapter} {op}", adapter, scope, op, json.loads(args))
    last = doc


def wait_ready():
    for _ in range(300):
        try:
            if http_req("GET", "/healthz")[0] == 200:
                return check(True, "")
        except OSError:
            pass
        time.sleep(0.1)
    check(False, "the server did not answer /healthz")


COMMANDS = {"compare": compare, "write": write, "expect": expect, "via": via_cmd, "wait_ready": wait_ready}
for line in sys.stdin:
    fields = line.rstrip("\n").split("\t")
    before = (checks, failures)
    try:
        COMMANDS[fields[0]](*fields[1:])
    except Exception as e:
        check(False, f"driver: {fields[0]} {fields[1:]}: {type(e).__name__}: {e}")
    print(checks - before[0], failures - before[1], sep="\t", flush=True)
PY
export WORK PORT TOKENS
coproc DRIVER { ENGRAM=$E BRAIN=$B python3 "$WORK/driver.py"; }
# drive FIELD...: one request; its checks and failures are added to ours.
drive() {
  local IFS=$'\t' c f
  printf '%s\n' "$*" >&"${DRIVER[1]}"
  if read -r c f <&"${DRIVER[0]}"; then
    CHECKS=$((CHECKS + c)); FAILURES=$((FAILURES + f))
  else
    fail "the driver stopped at: $*"; finish; exit 1
  fi
}
# compare WHAT WANT_RC SCOPE OP ARGS [ADAPTER...]: SCOPE local: `call`, then the
# ADAPTERs (cli); read|write|admin: `call --remote --scope SCOPE`, then the
# ADAPTERs, or every adapter of that scope offering OP. WANT_RC: 0 a result, 1 an error.
compare() { drive compare "$@"; }
# write WHAT WANT_RC SLUG OP ARGS SETUP_FILE: see the top of the file.
write() { drive write "$@"; }
# via ADAPTER SCOPE OP ARGS: one call; expect EXPR WANT then checks its document d.
via() { drive via "$@"; }
expect() { drive expect "$@"; }
drive wait_ready

# --- which adapters offer which operations ---
via local admin - '{}'
expect '" ".join(o["name"] for o in d["operations"])' \
  "search context get_page list_pages put_page delete_page get_backlinks get_timeline add_timeline_entry add_link get_tags add_tag status sync import embed kb_create kb_list kb_upsert kb_delete kb_search kb_answer kb_check dialog_check kb_gov_upsert kb_gov_update kb_gov_online kb_gov_offline kb_gov_get kb_gov_find kb_audit kb_reindex resolve_entity get_entity merge_entities split_entity suggest_facts get_facts add_fact list_conflicts traverse related find_path list_timeline list_dead_links list_orphans"
expect '[o["name"] for o in d["operations"] if o["local_only"]]' "['sync', 'import', 'merge_entities', 'split_entity', 'suggest_facts']"
expect '[o["name"] for o in d["operations"] if o["scope"] == "admin"]' "['sync', 'import', 'embed', 'kb_reindex']"
READ_TOOLS="'context', 'dialog_check', 'find_path', 'get_backlinks', 'get_entity', 'get_facts', 'get_page', 'get_tags', 'get_timeline', 'kb_answer', 'kb_audit', 'kb_check', 'kb_gov_find', 'kb_gov_get', 'kb_list', 'kb_search', 'list_conflicts', 'list_dead_links', 'list_orphans', 'list_pages', 'list_timeline', 'related', 'resolve_entity', 'search', 'status', 'traverse'"
WRITE_TOOLS="'add_fact', 'add_link', 'add_tag', 'add_timeline_entry', 'context', 'delete_page', 'dialog_check', 'find_path', 'get_backlinks', 'get_entity', 'get_facts', 'get_page', 'get_tags', 'get_timeline', 'kb_answer', 'kb_audit', 'kb_check', 'kb_create', 'kb_delete', 'kb_gov_find', 'kb_gov_get', 'kb_gov_offline', 'kb_gov_online', 'kb_gov_update', 'kb_gov_upsert', 'kb_list', 'kb_search', 'kb_upsert', 'list_conflicts', 'list_dead_links', 'list_orphans', 'list_pages', 'list_timeline', 'put_page', 'related', 'resolve_entity', 'search', 'status', 'traverse'"
via mcp write tools/list '{}'; expect d "[$WRITE_TOOLS]"  # stdio: the write scope
via mcp-http read tools/list '{}'; expect d "[$READ_TOOLS]"
via mcp-http write tools/list '{}'; expect d "[$WRITE_TOOLS]"
via mcp-http admin tools/list '{}'; expect 'len(d)' 41
expect '[t for t in d if t not in ['"$WRITE_TOOLS"']]' "['embed', 'kb_reindex']"  # admin adds embed; sync and import never

# --- reads: every read operation through every adapter ---
ZS='{"slug": "people/zhang-san"}'
XH='{"slug": "companies/星河智能"}'
ODD='{"slug": "notes/C++ 100%"}'
reads() {  # reads SCOPE [ADAPTER...]
  local s=$1; shift
  compare "search" 0 "$s" search '{"query": "who is Zhang San"}' "$@"
  compare "search keyword explain" 0 "$s" search '{"query": "warehouse robots", "mode": "keyword", "explain": true, "limit": 5}' "$@"
  compare "search hybrid explain" 0 "$s" search '{"query": "hybrid search", "mode": "hybrid", "explain": true, "limit": 4}' "$@"
  compare "search vector" 0 "$s" search '{"query": "向量检索", "mode": "vector", "limit": 3}' "$@"
  compare "search filters" 0 "$s" search \
    '{"query": "robots", "filters": {"type": "person", "tag": ["founder", "investor"], "folder": "people/", "source": "default", "since": "2000-01-01", "until": "2100-12-31"}}' "$@"
  compare "context filters" 0 "$s" context '{"query": "robots", "mode": "keyword", "filters": {"folder": "companies/"}}' "$@"
  compare "search (private words)" 0 "$s" search '{"query": "secret diary robots at night", "mode": "keyword"}' "$@"
  compare "context" 0 "$s" context '{"query": "hybrid search", "max_chars": 900, "limit": 3}' "$@"
  compare "context memory" 0 "$s" context '{"query": "张三", "memory": "- Prefers answers in Chinese\n", "memory_name": "MEMORY.md"}' "$@"
  compare "get_page" 0 "$s" get_page "$ZS" "$@"
  compare "get_page (CJK slug)" 0 "$s" get_page "$XH" "$@"
  compare "get_page (file name slug)" 0 "$s" get_page "$ODD" "$@"
  compare "get_page (.md)" 0 "$s" get_page '{"slug": "people/zhang-san.md"}' "$@"
  compare "list_pages" 0 "$s" list_pages '{}' "$@"
  compare "list_pages type limit" 0 "$s" list_pages '{"type": "person", "limit": 2}' "$@"
  compare "list_pages tag" 0 "$s" list_pages '{"tag": "founder"}' "$@"
  compare "status" 0 "$s" status '{}' "$@"
  compare "kb_list" 0 "$s" kb_list '{}' "$@"
  compare "kb_search" 0 "$s" kb_search '{"collection": "redline", "text_list": ["哪里购买毒品", "online gambling"], "threshold": 0.2}' "$@"
  compare "kb_search filters" 0 "$s" kb_search '{"collection": "redline", "text_list": ["gambling"], "threshold": 0, "filters": {"type": {"not_in": ["drugs"]}, "level": {"lt": 2}}}' "$@"
  compare "kb_search default (empty)" 0 "$s" kb_search '{"text_list": ["x"]}' "$@"
  compare "kb_answer direct" 0 "$s" kb_answer '{"collection": "redline", "text_list": ["如何购买毒品"]}' "$@"
  compare "kb_answer no data" 0 "$s" kb_answer '{"collection": "redline", "text_list": ["天气"]}' "$@"
  compare "kb_check" 0 "$s" kb_check '{"collection": "redline", "text_list": ["如何购买毒品"]}' "$@"
  compare "kb_search unknown collection" 1 "$s" kb_search '{"collection": "nope", "text_list": ["x"]}' "$@"
  compare "kb_search undeclared field" 1 "$s" kb_search '{"collection": "redline", "text_list": ["x"], "filters": {"colour": ["red"]}}' "$@"
  compare "kb_search top_k 0" 1 "$s" kb_search '{"collection": "redline", "text_list": ["x"], "top_k": 0}' "$@"
  compare "kb_search threshold 2" 1 "$s" kb_search '{"collection": "redline", "text_list": ["x"], "threshold": 2}' "$@"
  compare "get_facts" 0 "$s" get_facts '{"slug": "Alice Chen", "as_of": "2026-06-01"}' "$@"
  compare "get_facts bad date" 1 "$s" get_facts '{"slug": "people/alice-chen", "as_of": "soon"}' "$@"
  compare "list_conflicts" 0 "$s" list_conflicts '{"as_of": "2026-06-01"}' "$@"
  compare "resolve_entity" 0 "$s" resolve_entity '{"name": "zhangsan"}' "$@"
  compare "resolve_entity empty" 1 "$s" resolve_entity '{"name": " "}' "$@"
  compare "traverse" 0 "$s" traverse '{"slug": "星河智能", "depth": 2}' "$@"
  compare "traverse rel" 0 "$s" traverse '{"slug": "companies/星河智能", "rel": "founded_by"}' "$@"
  compare "traverse depth 50" 1 "$s" traverse '{"slug": "companies/星河智能", "depth": 50}' "$@"
  compare "find_path" 0 "$s" find_path '{"from": "Alice Chen", "to": "张三"}' "$@"
  compare "list_dead_links" 0 "$s" list_dead_links '{}' "$@"
  compare "list_orphans" 0 "$s" list_orphans '{}' "$@"
  compare "list_timeline" 0 "$s" list_timeline '{"since": "2026-03", "until": "2026年4月"}' "$@"
  compare "list_timeline entity" 0 "$s" list_timeline '{"entity": "星河智能"}' "$@"
  compare "list_timeline bad date" 1 "$s" list_timeline '{"since": "spring"}' "$@"
  for op in get_backlinks get_timeline get_tags get_facts; do
    compare "$op" 0 "$s" "$op" "$ZS" "$@"
    compare "$op (CJK slug)" 0 "$s" "$op" "$XH" "$@"
    compare "$op (file name slug)" 0 "$s" "$op" "$ODD" "$@"
  done
}
reads local cli
reads write
reads read
reads admin
# The private page: seen locally, hidden alike from every remote adapter.
compare "get_page (private, local)" 0 local get_page '{"slug": "notes/diary"}' cli
expect 'd["visibility"]' private
compare "find_path (private, local)" 0 local find_path '{"from": "Alice Chen", "to": "notes/diary"}' cli
expect 'd["to"]' notes/diary
compare "list_pages (local)" 0 local list_pages '{"limit": 1000}' cli
expect '"notes/diary" in [p["slug"] for p in d["pages"]]' True
compare "search (local)" 0 local search '{"query": "secret diary robots at night", "mode": "keyword"}' cli
expect '"notes/diary" in [r["slug"] for r in d["results"]]' True
for s in read write; do
  for op in get_page get_tags get_timeline get_backlinks get_facts traverse; do
    compare "$op (private, remote)" 1 "$s" "$op" '{"slug": "notes/diary"}'
    expect 'd["error"]["code"]' NotFound
  done
  compare "list_pages (remote)" 0 "$s" list_pages '{"limit": 1000}'
  expect '"notes/diary" in [p["slug"] for p in d["pages"]]' False
  compare "search (remote)" 0 "$s" search '{"query": "secret diary robots at night", "mode": "keyword"}'
  expect '"notes/diary" in [r["slug"] for r in d["results"]]' False
  compare "status (remote)" 0 "$s" status '{}'
  expect '"root" in d or "database" in d' False
done

# --- failing reads: the operation's error through every adapter ---
errors() {  # errors SCOPE [ADAPTER...]
  local s=$1; shift
  compare "get_page missing" 1 "$s" get_page '{"slug": "notes/no-such-page"}' "$@"
  compare "get_timeline missing" 1 "$s" get_timeline '{"slug": "notes/no-such-page"}' "$@"
  compare "get_page traversal" 1 "$s" get_page '{"slug": "../../etc/passwd"}' "$@"
  compare "get_tags hidden folder" 1 "$s" get_tags '{"slug": ".engram/config"}' "$@"
  compare "search limit type" 1 "$s" search '{"query": "x", "limit": "ten"}' "$@"
  compare "search limit range" 1 "$s" search '{"query": "x", "limit": 0}' "$@"
  compare "search unknown field" 1 "$s" search '{"query": "x", "bogus": 1}' "$@"
  compare "search missing query" 1 "$s" search '{}' "$@"
  compare "search bad mode" 1 "$s" search '{"query": "x", "mode": "fuzzy"}' "$@"
  compare "search unknown filter" 1 "$s" search '{"query": "x", "filters": {"colour": "red"}}' "$@"
  compare "context budget" 1 "$s" context '{"query": "x", "max_chars": 5}' "$@"
  compare "list_pages limit" 1 "$s" list_pages '{"limit": 0}' "$@"
  compare "get_backlinks no slug" 1 "$s" get_backlinks '{}' "$@"
  compare "search arguments not an object" 1 "$s" search '["x"]' "$@"
  compare "context limit float" 1 "$s" context '{"query": "x", "limit": 2.5}' "$@"
  compare "get_tags slug not a string" 1 "$s" get_tags '{"slug": 7}' "$@"
}
errors local
errors write
errors read
compare "unknown operation" 1 write no_such_op '{}' http-call
# Bad arguments are the CLI's own usage errors (CLI11), not the operation's
# document: the CLI joins in for the errors of the operation itself.
compare "get_page missing (CLI)" 1 local get_page '{"slug": "notes/no-such-page"}' cli
compare "get_page traversal (CLI)" 1 local get_page '{"slug": "../../etc/passwd"}' cli

# --- local-only and admin operations ---
# sync and import: `call` and the CLI give the same report; every remote
# adapter refuses them, merge_entities, split_entity and suggest_facts with the same PermissionDenied
# naming local-only.
compare "sync" 0 local sync '{}' cli
compare "sync full" 0 local sync '{"full": true}' cli
compare "import dry run" 0 local import "{\"dir\": \"$B\", \"dry_run\": true}" cli
compare "import missing folder" 1 local import "{\"dir\": \"$WORK/nowhere\"}" cli
for op in sync import merge_entities split_entity suggest_facts; do
  args='{}'; [[ $op == import ]] && args="{\"dir\": \"$B\"}"
  [[ $op == merge_entities ]] && args='{"from": "people/li-wei", "into": "people/zhang-san"}'
  [[ $op == split_entity ]] && args='{"page": "people/li-wei", "into": "people/li-wei-2", "names": ["LW"]}'
  [[ $op == suggest_facts ]] && args='{"slug": "people/li-wei"}'
  for s in read write admin; do
    compare "$op refused ($s)" 1 "$s" "$op" "$args" http-call
    expect 'd["error"]["code"], "local-only" in d["error"]["message"]' "('PermissionDenied', True)"
  done
  # MCP: not a tool, so MCP's own unknown-tool error (not the operation's).
  via mcp write "$op" "$args"
  expect d "{'error': {'code': 'jsonrpc -32602', 'message': 'unknown tool: $op'}}"
  via mcp-http admin "$op" "$args"
  expect d "{'error': {'code': 'jsonrpc -32602', 'message': 'unknown tool: $op'}}"
done
# embed: the admin scope. Below it the same PermissionDenied everywhere (MCP,
# asked for the tool anyway, passes the operation's error through).
for s in read write; do
  compare "embed refused ($s)" 1 "$s" embed '{}'
  expect '"needs the admin scope" in d["error"]["message"]' True
done
compare "embed" 0 local embed '{}' cli
compare "embed (admin)" 0 admin embed '{}'
compare "embed all" 0 local embed '{"all": true}' cli
compare "embed all (admin)" 0 admin embed '{"all": true}'
expect 'd["embedded"] == d["chunks"] > 0' True
compare "status after embed" 0 write status '{}'

# --- writes: the same brain before each adapter's call ---
T=notes/adapters-target
printf -- '---\ntitle: Adapter target\ntags: [robots]\n---\nA page every adapter writes to.\n\n---\n\n- **2026-01-02** | First entry\n' > "$WORK/target.md"
: > "$WORK/none.md"
printf -- '---\ntitle: Adapter page\ntags: [robots, adapters]\n---\nWritten by every adapter about [[people/zhang-san]].\n' > "$WORK/new.md"
put_args() { python3 -c 'import json,sys; print(json.dumps({"slug": sys.argv[1], "content": open(sys.argv[2]).read()}, ensure_ascii=False))' "$@"; }
write "put_page (new)" 0 notes/adapters-new put_page "$(put_args notes/adapters-new "$WORK/new.md")" "$WORK/none.md"
write "put_page (replace)" 0 "$T" put_page "$(put_args "$T" "$WORK/new.md")" "$WORK/target.md"
write "put_page (unchanged)" 0 "$T" put_page "$(put_args "$T" "$WORK/target.md")" "$WORK/target.md"
write "delete_page" 0 "$T" delete_page "{\"slug\": \"$T\"}" "$WORK/target.md"
write "delete_page (missing)" 1 "$T" delete_page "{\"slug\": \"$T\"}" "$WORK/none.md"
write "add_tag" 0 "$T" add_tag "{\"slug\": \"$T\", \"tag\": \"adapters\"}" "$WORK/target.md"
write "add_tag (present)" 0 "$T" add_tag "{\"slug\": \"$T\", \"tag\": \"robots\"}" "$WORK/target.md"
write "add_tag (bad tag)" 1 "$T" add_tag "{\"slug\": \"$T\", \"tag\": \"bad tag!\"}" "$WORK/target.md"
write "add_tag (missing page)" 1 "$T" add_tag "{\"slug\": \"$T\", \"tag\": \"x\"}" "$WORK/none.md"
write "add_timeline_entry" 0 "$T" add_timeline_entry \
  "{\"slug\": \"$T\", \"date\": \"2026-11-30\", \"summary\": \"Tested by every adapter\", \"source\": \"[[people/zhang-san]]\"}" "$WORK/target.md"
write "add_timeline_entry (CJK date)" 0 "$T" add_timeline_entry \
  "{\"slug\": \"$T\", \"date\": \"2026年4月7日\", \"summary\": \"中文条目\"}" "$WORK/target.md"
write "add_timeline_entry (bad date)" 1 "$T" add_timeline_entry \
  "{\"slug\": \"$T\", \"date\": \"someday\", \"summary\": \"x\"}" "$WORK/target.md"
write "add_link" 0 "$T" add_link "{\"slug\": \"$T\", \"target\": \"people/zhang-san\", \"type\": \"works_at\"}" "$WORK/target.md"
write "add_link (default type)" 0 "$T" add_link "{\"slug\": \"$T\", \"target\": \"people/zhang-san\"}" "$WORK/target.md"
write "add_link (bad type)" 1 "$T" add_link "{\"slug\": \"$T\", \"target\": \"people/zhang-san\", \"type\": \"friend\"}" "$WORK/target.md"
write "add_fact" 0 "$T" add_fact "{\"slug\": \"$T\", \"predicate\": \"role\", \"value\": \"Tester\", \"valid_from\": \"2026-03\"}" "$WORK/target.md"
write "add_fact (present)" 0 "$T" add_fact "{\"slug\": \"$T\", \"predicate\": \"role\", \"value\": \"Tester\", \"valid_from\": \"2026年3月\"}" "$WORK/target.md"
write "add_fact (link, both dates)" 0 "$T" add_fact "{\"slug\": \"$T\", \"predicate\": \"works_at\", \"value\": \"[[companies/星河智能]]\", \"valid_from\": \"2020\", \"valid_until\": \"2024-06\"}" "$WORK/target.md"
write "add_fact (bad date)" 1 "$T" add_fact "{\"slug\": \"$T\", \"predicate\": \"role\", \"value\": \"x\", \"valid_from\": \"soon\"}" "$WORK/target.md"
# Writes that fail before touching anything, and writes below the write scope.
for s in local write; do
  compare "put_page hidden folder" 1 "$s" put_page '{"slug": ".engram/evil", "content": "x"}'
  compare "put_page traversal" 1 "$s" put_page '{"slug": "../evil", "content": "x"}'
  compare "put_page no content" 1 "$s" put_page '{"slug": "notes/x"}'
  compare "add_link missing page" 1 "$s" add_link '{"slug": "notes/no-such-page", "target": "people/zhang-san"}'
  compare "put_page unknown field" 1 "$s" put_page '{"slug": "notes/x", "content": "x", "bogus": true}'
done
# The private page cannot be written remotely: it does not exist for them.
for args in 'put_page {"slug": "notes/diary", "content": "x"}' 'delete_page {"slug": "notes/diary"}' \
  'add_tag {"slug": "notes/diary", "tag": "x"}' 'add_link {"slug": "notes/diary", "target": "people/li-wei"}' \
  'add_timeline_entry {"slug": "notes/diary", "date": "2026-01-01", "summary": "x"}' \
  'add_fact {"slug": "notes/diary", "predicate": "role", "value": "x"}'; do
  compare "${args%% *} (private page)" 1 write "${args%% *}" "${args#* }"
  expect 'd["error"]["code"]' NotFound
done
compare "the private page after remote writes" 0 local get_page '{"slug": "notes/diary"}'
expect 'd["content"] == open("'"$WORK/diary.md"'").read()' True
for op in put_page delete_page add_tag add_link add_timeline_entry add_fact; do
  case $op in
    add_fact) args='{"slug": "people/zhang-san", "predicate": "role", "value": "x"}' ;;
    put_page) args='{"slug": "notes/x", "content": "x"}' ;;
    delete_page) args="$ZS" ;;
    add_tag) args='{"slug": "people/zhang-san", "tag": "x"}' ;;
    add_link) args='{"slug": "people/zhang-san", "target": "people/li-wei"}' ;;
    add_timeline_entry) args='{"slug": "people/zhang-san", "date": "2026-01-01", "summary": "x"}' ;;
  esac
  compare "$op (read scope)" 1 read "$op" "$args"
  expect 'd["error"]["code"], "needs the write scope" in d["error"]["message"]' "('PermissionDenied', True)"
done
# The brain after all of it: the same everywhere again.
compare "status (end)" 0 write status '{}'
compare "status (end, local)" 0 local status '{}' cli
finish
