// An editor on the official TypeScript ACP SDK, as Zed drives an agent: it offers its
// buffers, answers permission requests, and prints every message it gets as one JSON
// line on stdout, for the Python test to read.
//
//   node acp_editor.mjs SCRIPT.json -- neocode acp
//
// SCRIPT: {"cwd": DIR, "buffers": {ABS_PATH: TEXT}, "mode": MODE?, "answer": OPTION_ID,
//          "prompts": [TEXT, ...], "load": SESSION_ID?, "resume": SESSION_ID?,
//          "options": [{"configId": ID, "value": VALUE}, ...], "delete": [SESSION_ID, ...]}
//
// Each id of "delete" ("$session": the one made or loaded) is deleted after the prompts ("deleted", or "refused" with the
// agent's error), then the sessions of cwd are listed ("listed").
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [scriptPath, separator, command, ...args] = process.argv.slice(2);
if (separator !== "--" || !command) {
  console.error("usage: node acp_editor.mjs SCRIPT.json -- COMMAND [ARGS...]");
  process.exit(2);
}
const script = JSON.parse(readFileSync(scriptPath, "utf8"));
const buffers = script.buffers ?? {};
const say = (kind, body) => process.stdout.write(JSON.stringify({ kind, at: performance.now(), ...body }) + "\n");

// The SDK reports a message that fails its schema (or a handler's error) on the console
// and goes on; here that fails the run.
console.error = (...parts) => {
  say("failed", { error: parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ") });
  process.exitCode = 1;
};

const agent = spawn(command, args, { cwd: script.cwd, stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

const editor = client({ name: "ts-test-editor" })
  .onNotification(methods.client.session.update, ({ params }) => {
    say("update", { update: params.update });
  })
  .onRequest(methods.client.session.requestPermission, ({ params: request }) => {
    say("permission", { request });
    return { outcome: { outcome: "selected", optionId: script.answer ?? "allow" } };
  })
  .onRequest(methods.client.fs.readTextFile, ({ params: request }) => {
    say("read", { path: request.path });
    return { content: request.path in buffers ? buffers[request.path] : readFileSync(request.path, "utf8") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params: request }) => {
    say("write", { path: request.path, content: request.content });
    buffers[request.path] = request.content;
    return {};
  });

try {
  await editor.connectWith(stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      clientInfo: { name: "ts-test-editor", version: "1" },
    });
    say("initialized", { response: init });
    let sessionId = script.load;
    if (script.resume) {
      sessionId = script.resume;
      say("resumed", { response: await ctx.request(methods.agent.session.resume, { sessionId, cwd: script.cwd }) });
    } else if (sessionId) {
      say("loaded", { response: await ctx.request(methods.agent.session.load, { sessionId, cwd: script.cwd, mcpServers: [] }) });
    } else {
      const made = await ctx.request(methods.agent.session.new, { cwd: script.cwd, mcpServers: [] });
      sessionId = made.sessionId;
      say("session", { response: made });
    }
    if (script.mode) {
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: script.mode });
    }
    for (const option of script.options ?? []) {
      say("configured", { response: await ctx.request(methods.agent.session.setConfigOption, { sessionId, ...option }) });
    }
    for (const text of script.prompts ?? []) {
      const response = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      say("prompted", { response });
    }
    for (const id of script.delete ?? []) {
      try {
        const target = id === "$session" ? sessionId : id;
        say("deleted", { id, response: await ctx.request(methods.agent.session.delete, { sessionId: target }) });
      } catch (error) {
        say("refused", { id, error: { code: error?.code, message: String(error?.message ?? error) } });
      }
    }
    if (script.delete) {
      say("listed", { response: await ctx.request(methods.agent.session.list, { cwd: script.cwd }) });
    }
  });
  say("done", {});
} catch (error) {
  say("failed", { error: String(error?.stack ?? error) });
  process.exitCode = 1;
} finally {
  agent.stdin.end();
}
