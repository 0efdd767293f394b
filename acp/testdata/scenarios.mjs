// More of an editor's side of `kimigo acp` with the real npm ACP client
// (@agentclientprotocol/sdk): one scenario of spec 06 §10 per run, each
// against fresh `kimigo acp` processes over their stdio. It prints a
// transcript, one line per step, that the Go test checks; the lines about
// the wire follow the order in which the server wrote them.
//
// Usage: node scenarios.mjs <kimigo binary> <work dir> <scenario> [<JSON options>]
// KIMIGO_ACP_NPM_DIR is the directory holding node_modules.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [binary, work, scenario, extra] = process.argv.slice(2);
const opts = extra ? JSON.parse(extra) : {};
const acp = await import(
  pathToFileURL(join(process.env.KIMIGO_ACP_NPM_DIR, "node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")).href
);
const { client, methods, ndJsonStream } = acp;

const out = [];
const say = (line) => out.push(line);

function options(opts) {
  return opts
    .map((o) => {
      let s = `${o.id}=${o.currentValue}`;
      if (o.id === "thinking") s += `[${o.options.map((v) => `${v.value}:${v.name}`).join(",")}]${o.category}`;
      return s;
    })
    .join(" ");
}

function describe(u) {
  switch (u.sessionUpdate) {
    case "agent_message_chunk":
    case "user_message_chunk":
      return `${u.sessionUpdate} ${JSON.stringify(u.content.text ?? "")}`;
    case "tool_call":
      return `tool_call ${u.toolCallId} ${u.kind} ${u.status}`;
    case "tool_call_update":
      return `tool_call_update ${u.toolCallId} ${u.status ?? "-"}`;
    case "config_option_update":
      return `config_option_update ${options(u.configOptions)}`;
    default:
      return u.sessionUpdate;
  }
}

// names are the sessions by id, s1, s2, … in the order they were made;
// update lines carry them when tagging is on.
const names = {};
let tagging = false;
const tagged = (id) => (tagging ? `[${names[id] ?? id}] ` : "");

// start spawns `kimigo acp` and returns its stream, every stdout line of
// which is checked to be one JSON-RPC message and logged.
function start() {
  const child = spawn(binary, ["acp"], { cwd: work, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  let pending = "";
  let lines = 0;
  const decoder = new TextDecoder();
  const check = new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let i;
      while ((i = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, i);
        pending = pending.slice(i + 1);
        lines++;
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          say(`bad-line ${JSON.stringify(line)}`);
          continue;
        }
        if (msg.jsonrpc !== "2.0") say(`bad-line ${JSON.stringify(line)}`);
        if (msg.result?.sessionId !== undefined) names[msg.result.sessionId] = `s${Object.keys(names).length + 1}`;
        if (msg.method === "session/update") say(`update ${tagged(msg.params.sessionId)}${describe(msg.params.update)}`);
        if (msg.method === "session/request_permission") {
          const p = msg.params;
          say(`permission ${p.toolCall.toolCallId} ${p.options.map((o) => o.optionId).join(",")}`);
        }
        if (msg.method === "fs/read_text_file") say(`fs read ${msg.params.path}`);
        if (msg.method === "fs/write_text_file") say(`fs write ${msg.params.path} ${JSON.stringify(msg.params.content)}`);
        if (msg.method === undefined && msg.result !== undefined) {
          say(`response ${Object.keys(msg.result ?? {}).sort().join(",")}`);
        }
      }
      controller.enqueue(chunk);
    },
  });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout).pipeThrough(check));
  return {
    stream,
    // end closes stdin and reports how the process ended.
    async end() {
      child.stdin.end();
      const code = await exited;
      say(`exit ${code} lines=${lines > 0}`);
      if (stderr.trim() !== "") say(`stderr ${JSON.stringify(stderr)}`);
    },
  };
}

// session runs body against a fresh process with a client whose handlers
// are given (permission, buffers) and logs a client error.
async function session({ permission, buffers = {}, caps = {}, onUpdate = () => {} }, body) {
  const proc = start();
  const app = client({ name: "kimigo-test" })
    .onRequest(methods.client.session.requestPermission, async ({ params, agent }) =>
      permission ? permission(params, agent) : { outcome: { outcome: "selected", optionId: "approve_once" } },
    )
    .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      if (!(params.path in buffers)) throw new Error(`no buffer for ${params.path}`);
      return { content: buffers[params.path] };
    })
    .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      buffers[params.path] = params.content;
      return {};
    })
    .onNotification(methods.client.session.update, async ({ params }) => onUpdate(params));
  try {
    await app.connectWith(proc.stream, async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: caps });
      say(`initialize protocol=${init.protocolVersion}`);
      await body(ctx);
    });
  } catch (e) {
    say(`client error ${e?.stack ?? e}`);
  }
  await proc.end();
}

// attempt runs a request that may fail and says how it ended.
async function attempt(what, p) {
  try {
    const r = await p;
    say(`${what} ok ${JSON.stringify(r)}`);
    return r;
  } catch (e) {
    say(`${what} error ${e.code} ${e.data?.message ?? e.message}`);
  }
}

const newSession = async (ctx, mcpServers = []) => {
  const s = await ctx.request(methods.agent.session.new, { cwd: work, mcpServers });
  say(`new ${s.sessionId.startsWith("session_") ? "session_*" : s.sessionId} ${options(s.configOptions)}`);
  return s.sessionId;
};

const prompt = async (ctx, sessionId, text) => {
  say(`prompt ${text}`);
  const r = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  say(`stop ${r.stopReason}`);
  return r;
};

const scenarios = {
  // Scenario 61: the client rejects the Write.
  async reject() {
    await session({ permission: async () => ({ outcome: { outcome: "selected", optionId: "reject" } }) }, async (ctx) => {
      await prompt(ctx, await newSession(ctx), "create b.txt");
    });
  },

  // Scenario 61: the client's permission handler fails.
  async throws() {
    await session(
      {
        permission: async () => {
          throw new Error("the editor crashed");
        },
      },
      async (ctx) => {
        await prompt(ctx, await newSession(ctx), "create b.txt");
      },
    );
  },

  // Scenario 63: the client's file system with an unsaved buffer.
  async fs() {
    const buffers = { [join(work, "a.txt")]: "draft\n" };
    await session({ buffers, caps: { fs: { readTextFile: true, writeTextFile: true } } }, async (ctx) => {
      await prompt(ctx, await newSession(ctx), "edit");
    });
  },

  // Scenario 64 and session/resume: a session made by one process is
  // listed, loaded with its history replayed before the response, and
  // resumed without it by later ones; the errors.
  async load() {
    let id;
    await session({}, async (ctx) => {
      id = await newSession(ctx);
      await prompt(ctx, id, "create b.txt");
    });
    await session({}, async (ctx) => {
      const list = await ctx.request(methods.agent.session.list, { cwd: work });
      for (const s of list.sessions) {
        say(`list ${s.sessionId === id ? "same-id" : s.sessionId} cwd=${s.cwd === work} ` +
          `updatedAt=${/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(s.updatedAt ?? "")}`);
      }
      say("load");
      const r = await ctx.request(methods.agent.session.load, { sessionId: id, cwd: work, mcpServers: [] });
      say(`loaded ${options(r.configOptions)}`);
      await attempt("load session_nope",
        ctx.request(methods.agent.session.load, { sessionId: "session_nope", cwd: work, mcpServers: [] }));
      await attempt("authenticate x", ctx.request(methods.agent.authenticate, { methodId: "x" }));
      await attempt("authenticate login", ctx.request(methods.agent.authenticate, { methodId: "login" }));
    });
    await session({}, async (ctx) => {
      say("resume");
      const r = await ctx.request(methods.agent.session.resume, { sessionId: id, cwd: work, mcpServers: [] });
      say(`resumed ${options(r.configOptions)}`);
      await prompt(ctx, id, "are you there?");
      await attempt("resume session_nope",
        ctx.request(methods.agent.session.resume, { sessionId: "session_nope", cwd: work, mcpServers: [] }));
    });
  },

  // Scenario 64: no usable model.
  async nomodel() {
    await session({}, async (ctx) => {
      await attempt("new", ctx.request(methods.agent.session.new, { cwd: work, mcpServers: [] }));
      await attempt("authenticate login", ctx.request(methods.agent.authenticate, { methodId: "login" }));
    });
  },

  // Scenario 66: the client's MCP servers, one of a type kimigo ignores.
  async mcp() {
    await session({}, async (ctx) => {
      const id = await newSession(ctx, [
        { name: "echo", command: opts.command, args: opts.args, env: [{ name: "K", value: "v" }] },
        { type: "acp", name: "other", id: "x" },
      ]);
      await prompt(ctx, id, "show the environment");
      await prompt(ctx, id, "/mcp");
    });
  },

  // Two sessions of one process prompt at once, both mid-stream when one
  // is cancelled; the other then ends as usual. The model holds the
  // second session's answer until the first session prompts again.
  async concurrent() {
    tagging = true;
    let chunkOf = () => {};
    const onUpdate = (p) => {
      if (p.update.sessionUpdate === "agent_message_chunk") chunkOf(p.sessionId);
    };
    const streaming = (id) => new Promise((resolve) => (chunkOf = (got) => got === id && resolve()));
    await session({ onUpdate }, async (ctx) => {
      const a = await newSession(ctx);
      const b = await newSession(ctx);
      say(`distinct ${a !== b}`);
      const text = (t) => [{ type: "text", text: t }];
      let started = streaming(a);
      const slow = ctx.request(methods.agent.session.prompt, { sessionId: a, prompt: text("the slow one") });
      await started;
      started = streaming(b);
      const fast = ctx.request(methods.agent.session.prompt, { sessionId: b, prompt: text("the fast one") });
      await started;
      say("both streaming");
      await ctx.notify(methods.agent.session.cancel, { sessionId: a });
      say(`stop s1 ${(await slow).stopReason}`);
      const again = ctx.request(methods.agent.session.prompt, { sessionId: a, prompt: text("again") });
      say(`stop s2 ${(await fast).stopReason}`);
      say(`next s1 ${(await again).stopReason}`);
    });
  },

  // The thinking config option (spec 06 §8.10).
  async thinking() {
    await session({}, async (ctx) => {
      const id = await newSession(ctx);
      await prompt(ctx, id, "first");
      const set = (value) =>
        ctx.request(methods.agent.session.setConfigOption, { sessionId: id, configId: "thinking", value });
      say(`set high ${options((await set("high")).configOptions)}`);
      await prompt(ctx, id, "second");
      await attempt("set max", set("max"));
      say(`set off ${options((await set("off")).configOptions)}`);
      await prompt(ctx, id, "third");
    });
  },
};

const run = scenarios[scenario];
if (!run) {
  say(`client error unknown scenario ${scenario}`);
} else {
  await run();
}
process.stdout.write(out.join("\n") + "\n");
