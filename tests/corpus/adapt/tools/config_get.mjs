#!/usr/bin/env node
// config_get — look up a dotted key in a JSON config file.
// command = "node tools/config_get.js '{{tool.arguments.file}}' '{{tool.arguments.key}}' '{{tool.answers}}'"
// If no key was given we ask for one (JP re-runs us with tool.answers.key).
import { readFile, access } from 'node:fs/promises';
import { basename } from 'node:path';

const [file, keyArg, answersRaw] = process.argv.slice(2);

const emit = (o) => console.log(JSON.stringify(o));

async function exists(p) {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}

async function main() {
  if (!file || file === 'null') {
    return emit({ type: 'error', message: 'file is required', trace: [], transient: false });
  }

  const lock = `data/locks/${basename(file, '.json')}.lock`;
  if (await exists(lock)) {
    return emit({
      type: 'error',
      message: `${file} is being rewritten by another process`,
      trace: [`found ${lock}`, 'try again in a few seconds'],
      transient: true,
    });
  }

  const config = JSON.parse(await readFile(file, 'utf8'));

  let answers = {};
  if (answersRaw && answersRaw !== 'null') answers = JSON.parse(answersRaw);

  const key = keyArg && keyArg !== 'null' ? keyArg : answers.key;
  if (key === undefined || key === null) {
    return emit({
      type: 'needs_input',
      question: {
        id: 'key',
        text: 'Which key do you want?',
        answer_type: 'Text',
        default: null,
      },
    });
  }

  let cur = config;
  const walked = [];
  for (const part of String(key).split('.')) {
    if (cur === null || typeof cur !== 'object' || !(part in cur)) {
      return emit({
        type: 'error',
        message: `key not found: ${key}`,
        trace: [`resolved: ${walked.join('.') || '(root)'}`, `missing: ${part}`],
        transient: false,
      });
    }
    cur = cur[part];
    walked.push(part);
  }

  const content = typeof cur === 'string' ? cur : JSON.stringify(cur, null, 2);
  emit({ type: 'success', content });
}

main().catch((err) => {
  console.error(`config_get: ${err.code || err.name}: ${file}`);
  process.exit(1);
});
