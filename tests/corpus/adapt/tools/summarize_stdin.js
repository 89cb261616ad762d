#!/usr/bin/env node
// summarize_stdin: text statistics. Reads the tool JSON from stdin, because
// argv got mangled on Windows once and I never went back.
//   command = "sh -c 'printf %s \"$0\" | node tools/summarize_stdin.js' '{{tool}}'"
const chunks = [];
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const raw = chunks.join('');
  let tool;
  try {
    tool = JSON.parse(raw);
  } catch (e) {
    console.error('summarize_stdin: stdin was not JSON');
    process.exit(2);
  }
  const a = tool.arguments || {};
  const text = a.text;
  const mode = a.mode || 'stats';

  if (typeof text !== 'string' || text.length === 0) {
    process.stdout.write(JSON.stringify({
      type: 'error',
      message: 'text must be a non-empty string',
      trace: ['got: ' + JSON.stringify(text === undefined ? null : text)],
      transient: false,
    }) + '\n');
    return;
  }

  let content;
  switch (mode) {
    case 'stats': {
      const lines = text.split('\n');
      const codepoints = Array.from(text).length;
      const bytes = Buffer.byteLength(text, 'utf8');
      const nonAscii = Array.from(text).filter((ch) => ch.codePointAt(0) > 127).length;
      content = [
        `lines: ${lines.length}`,
        `code points: ${codepoints}`,
        `utf-8 bytes: ${bytes}`,
        `non-ascii: ${nonAscii}`,
        `longest line: ${lines.reduce((m, l) => Math.max(m, Array.from(l).length), 0)}`,
      ].join('\n');
      break;
    }
    case 'upper':
      content = text.toUpperCase();
      break;
    case 'reverse_lines':
      content = text.split('\n').reverse().join('\n');
      break;
    default:
      console.error(`summarize_stdin: unknown mode "${mode}"`);
      console.error('modes: stats, upper, reverse_lines');
      process.exit(2);
  }
  process.stdout.write(JSON.stringify({ type: 'success', content }) + '\n');
});
