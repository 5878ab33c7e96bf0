// Drives engram's MCP server with the official TypeScript SDK client, over
// stdio or Streamable HTTP, and checks what comes back. Prints one line per
// failed check; exits 1 when any failed.
//   node mcp_client.mjs stdio ENGRAM BRAIN
//   node mcp_client.mjs http URL TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, a, b] = process.argv.slice(2);
let failures = 0;
let checks = 0;
const check = (ok, what) => {
  checks++;
  if (!ok) {
    failures++;
    console.log(`FAIL (${mode}): ${what}`);
  }
};

const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: a, args: ["--brain", b, "mcp"], stderr: "pipe" })
    : new StreamableHTTPClientTransport(new URL(a), { requestInit: { headers: { Authorization: `Bearer ${b}` } } });
const client = new Client({ name: "engram-e2e", version: "1.0.0" });
await client.connect(transport);

const info = client.getServerVersion();
check(info && info.name === "engram", `serverInfo.name: ${JSON.stringify(info)}`);
check(client.getServerCapabilities()?.tools !== undefined, "tools capability");
await client.ping();

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
for (const want of ["search", "context", "get_page", "put_page", "delete_page", "list_pages", "get_backlinks",
                    "get_timeline", "add_timeline_entry", "add_link", "get_tags", "add_tag", "status"]) {
  check(names.includes(want), `tool ${want} listed`);
}
check(!names.includes("sync") && !names.includes("import"), "local-only operations are not tools");
for (const t of tools) check(t.inputSchema && t.inputSchema.type === "object", `${t.name} has an object input schema`);

const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const data = (r) => r.structuredContent ?? JSON.parse(text(r));

let r = await client.callTool({ name: "search", arguments: { query: "who is Zhang San", limit: 3 } });
check(!r.isError, `search: ${text(r)}`);
check(data(r).results[0].slug === "people/zhang-san", `search finds people/zhang-san: ${text(r).slice(0, 200)}`);

r = await client.callTool({ name: "context", arguments: { query: "hybrid search", max_chars: 800 } });
check(!r.isError && data(r).context.startsWith("<retrieved_context>"), `context block: ${text(r).slice(0, 120)}`);

const slug = `notes/mcp-${mode}`;
r = await client.callTool({ name: "put_page", arguments: { slug, content: "---\ntitle: From MCP\n---\nWritten over MCP.\n" } });
check(!r.isError && data(r).created === true, `put_page: ${text(r)}`);
r = await client.callTool({ name: "add_tag", arguments: { slug, tag: "agent" } });
check(!r.isError && data(r).changed === true, `add_tag: ${text(r)}`);
r = await client.callTool({ name: "get_tags", arguments: { slug } });
check(JSON.stringify(data(r).tags) === '["agent"]', `get_tags: ${text(r)}`);
r = await client.callTool({ name: "add_timeline_entry", arguments: { slug, date: "2026-11-30", summary: "Tested" } });
check(!r.isError, `add_timeline_entry: ${text(r)}`);
r = await client.callTool({ name: "get_timeline", arguments: { slug } });
check(data(r).timeline.length === 1 && data(r).timeline[0].summary === "Tested", `get_timeline: ${text(r)}`);
r = await client.callTool({ name: "add_link", arguments: { slug, target: "people/zhang-san" } });
check(!r.isError, `add_link: ${text(r)}`);
r = await client.callTool({ name: "get_backlinks", arguments: { slug: "people/zhang-san" } });
check(data(r).backlinks.some((l) => l.from === slug), `get_backlinks: ${text(r).slice(0, 200)}`);
r = await client.callTool({ name: "get_page", arguments: { slug } });
check(data(r).content.includes("[[people/zhang-san]]"), `get_page: ${text(r).slice(0, 200)}`);
r = await client.callTool({ name: "list_pages", arguments: { limit: 1000 } });
check(data(r).pages.some((p) => p.slug === slug), "list_pages has the new page");
check(!data(r).pages.some((p) => p.visibility === "private"), "list_pages hides private pages");
r = await client.callTool({ name: "status", arguments: {} });
check(!r.isError && data(r).pages > 0 && data(r).root === undefined, `status: ${text(r).slice(0, 120)}`);

// The trust boundary and errors.
r = await client.callTool({ name: "get_page", arguments: { slug: "../../etc/passwd" } });
check(r.isError === true && text(r).includes(".."), `traversal refused: ${text(r)}`);
r = await client.callTool({ name: "put_page", arguments: { slug: ".git/hooks/post-commit", content: "#!/bin/sh\n" } });
check(r.isError === true, `hidden folder refused: ${text(r)}`);
r = await client.callTool({ name: "get_page", arguments: { slug: "notes/nope" } });
check(r.isError === true && text(r).startsWith("NotFound"), `missing page: ${text(r)}`);
let threw = null;
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
} catch (e) {
  threw = e;
}
check(threw && threw.code === -32602, `unknown tool is -32602: ${threw && threw.code}`);
threw = null;
try {
  await client.callTool({ name: "search", arguments: { query: "x", limit: "ten" } });
} catch (e) {
  threw = e;
}
check(threw && threw.code === -32602 && String(threw.message).includes("limit"), `bad argument is -32602: ${threw}`);

r = await client.callTool({ name: "delete_page", arguments: { slug } });
check(!r.isError, `delete_page: ${text(r)}`);
await client.close();
console.log(`${checks - failures} passed, ${failures} failed (${mode})`);
process.exit(failures === 0 ? 0 : 1);
