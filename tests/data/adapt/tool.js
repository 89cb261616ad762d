// A legacy JP tool in Node.js: prints an Outcome (SPEC §1) per action.
const [action, answer, picked] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
switch (action) {
  case "greet":
    out({ type: "success", content: "héllo from node ✓" });
    break;
  case "flaky":
    out({ type: "error", message: "db is down", trace: ["connect: refused", "node"], transient: true });
    break;
  case "fail":
    out({ type: "error", message: "no such file: notes.txt", trace: [], transient: false });
    break;
  case "confirm":
    if (answer === "null") {
      out({ type: "needs_input", question: { id: "confirm", text: "Apply the patch?",
        pre_amble: "3 files change.", answer_type: "Boolean", default: null } });
    } else {
      out({ type: "success", content: answer === "true" ? "applied" : "skipped" });
    }
    break;
  case "pick":
    if (picked === "null") {
      out({ type: "needs_input", question: { id: "pick", text: "Which colour?",
        answer_type: { Select: { options: ["red", "green"] } }, default: "green" } });
    } else {
      out({ type: "success", content: "picked " + picked });
    }
    break;
  case "raw":
    process.stdout.write("just text, no JSON\n");
    break;
  case "crash":
    process.stdout.write("partial output");
    process.stderr.write("boom: disk on fire\n");
    process.exitCode = 3;
    break;
  case "envelope":
    process.stdout.write('{"content": [{"type": "text", "text": "already new"}]}');
    break;
  default:
    process.stderr.write(`unknown action ${action}\n`);
    process.exitCode = 2;
}
