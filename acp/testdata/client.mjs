// An editor's side of `kimigo acp`, with the real npm ACP client
// (@agentclientprotocol/sdk). It spawns the server, runs initialize →
// session/new → prompt with a permission request → a cancelled prompt, and
// prints a transcript, one line per step, that the Go test checks.
//
// Usage: node client.mjs <kimigo binary> <work dir>
// KIMIGO_ACP_NPM_DIR is the directory holding node_modules.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [binary, work] = process.argv.slice(2);
const npmDir = process.env.KIMIGO_ACP_NPM_DIR;
const acp = await import(
  pathToFileURL(join(npmDir, "node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")).href
);
const { client, methods, ndJsonStream } = acp;

const out = [];
const say = (line) => out.push(line);

const child = spawn(binary, ["acp"], { cwd: work, stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
child.stderr.on("data", (d) => (stderr += d));
const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));

// Every stdout line must be one JSON-RPC message; the bytes pass on as
// they are.
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
      // The transcript follows the wire: the client runs request handlers
      // at once and notifications in a queue, so handlers see another order.
      if (msg.method === "session/update") sayUpdate(msg.params.update);
      if (msg.result?.sessionId !== undefined) say("response session/new");
      if (msg.method === "session/request_permission") {
        const p = msg.params;
        say(`permission ${p.toolCall.toolCallId} ${p.options.map((o) => o.optionId).join(",")}`);
      }
    }
    controller.enqueue(chunk);
  },
});
const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout).pipeThrough(check));

// answerPermission decides each permission request; set per step.
let answerPermission = async () => ({ outcome: { outcome: "selected", optionId: "approve_once" } });
let onChunk = () => {};

const app = client({ name: "kimigo-test" })
  .onRequest(methods.client.session.requestPermission, async ({ params, agent }) => answerPermission(params, agent))
  .onNotification(methods.client.session.update, async ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") onChunk(params.update.content.text);
  });

function sayUpdate(u) {
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
        say(`update agent_message_chunk`);
        break;
      case "tool_call":
        say(`update tool_call ${u.toolCallId} ${u.kind} ${u.status}`);
        break;
      case "tool_call_update":
        say(`update tool_call_update ${u.toolCallId} ${u.status ?? "-"}`);
        break;
      case "config_option_update":
        say(`update config_option_update mode=${u.configOptions.find((o) => o.id === "mode")?.currentValue}`);
        break;
      default:
        say(`update ${u.sessionUpdate}`);
    }
}

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const caps = init.agentCapabilities;
    say(
      `initialize protocol=${init.protocolVersion} loadSession=${caps.loadSession} image=${caps.promptCapabilities.image} ` +
        `audio=${caps.promptCapabilities.audio ?? false} embeddedContext=${caps.promptCapabilities.embeddedContext} ` +
        `http=${caps.mcpCapabilities.http} sse=${caps.mcpCapabilities.sse} list=${!!caps.sessionCapabilities.list} ` +
        `resume=${!!caps.sessionCapabilities.resume} auth=${init.authMethods.map((m) => `${m.id}:${m.type}:${m.args.join(" ")}`).join(",")}`,
    );

    const s = await ctx.request(methods.agent.session.new, { cwd: work, mcpServers: [] });
    say(
      `new ${s.sessionId.startsWith("session_") ? "session_*" : s.sessionId} options=${s.configOptions.map((o) => o.id).join(",")} ` +
        `mode=${s.configOptions.find((o) => o.id === "mode").currentValue}`,
    );
    say("prompt create b.txt");
    const r1 = await ctx.request(methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "create b.txt" }],
    });
    say(`stop ${r1.stopReason}`);

    // A permission request answered "cancelled" after a session/cancel:
    // the tool does not run and the prompt ends cancelled.
    answerPermission = async (params, agent) => {
      await agent.notify(methods.agent.session.cancel, { sessionId: params.sessionId });
      return { outcome: { outcome: "cancelled" } };
    };
    say("prompt create c.txt");
    const r2 = await ctx.request(methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "create c.txt" }],
    });
    say(`stop ${r2.stopReason}`);

    // A cancel during a slow stream.
    let first;
    const chunked = new Promise((resolve) => (first = resolve));
    onChunk = () => first();
    say("prompt slow");
    const slow = ctx.request(methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "a slow one" }],
    });
    await chunked;
    onChunk = () => {};
    await ctx.notify(methods.agent.session.cancel, { sessionId: s.sessionId });
    say(`stop ${(await slow).stopReason}`);

    try {
      await ctx.request(methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "bogus" });
      say("set_mode bogus accepted");
    } catch (e) {
      say(`set_mode bogus error ${e.code} ${e.data?.message ?? e.message}`);
    }
  });
} catch (e) {
  say(`client error ${e?.stack ?? e}`);
}
child.stdin.end();
const code = await exited;
say(`exit ${code} lines=${lines > 0}`);
if (stderr.trim() !== "") say(`stderr ${JSON.stringify(stderr)}`);
process.stdout.write(out.join("\n") + "\n");
