#!/usr/bin/env node
// json_keys: describe the top-level shape of a JSON file.
// { program = "node", args = ["tools/json_keys.js", "{{tool}}"] }
// Note: output has no trailing newline (process.stdout.write, not console.log).
'use strict';
const fs = require('fs');

const tool = JSON.parse(process.argv[2] || '{}');
const args = tool.arguments || {};

function out(obj) {
  process.stdout.write(JSON.stringify(obj));
}

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `array(${v.length})`;
  if (typeof v === 'object') return `object(${Object.keys(v).length} keys)`;
  return typeof v;
}

if (!args.file) {
  out({ type: 'error', message: 'file is required', trace: [], transient: false });
  process.exit(0);
}

let text;
try {
  text = fs.readFileSync(args.file, 'utf8');
} catch (e) {
  out({ type: 'error', message: `could not read ${args.file}`, trace: [e.code, e.message], transient: false });
  process.exit(0);
}

let data;
try {
  data = JSON.parse(text);
} catch (e) {
  // V8's messages change between Node versions, so only keep our own text
  out({
    type: 'error',
    message: `${args.file} is not valid JSON`,
    trace: [`${text.length} characters read`, 'JSON.parse failed'],
    transient: false,
  });
  process.exit(0);
}

let lines;
if (Array.isArray(data)) {
  lines = data.map((v, i) => `[${i}] ${typeOf(v)}`);
  lines.unshift(`${args.file}: array with ${data.length} items`);
} else if (data && typeof data === 'object') {
  lines = Object.keys(data).map((k) => `${k}: ${typeOf(data[k])}`);
  lines.unshift(`${args.file}: object with ${lines.length} keys`);
} else {
  lines = [`${args.file}: scalar ${typeOf(data)} = ${JSON.stringify(data)}`];
}

out({ type: 'success', content: lines.join('\n') });
