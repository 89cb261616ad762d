#!/usr/bin/env node
// list_notes: dump notes from data/notes.json as JSON for the model.
// Predates the Outcome protocol: it just prints whatever JSON it has.
//   { program = "node", args = ["tools/list_notes.js", "{{tool.arguments.tag}}", "{{tool.arguments.format}}"] }
const fs = require('fs');

const [tag, format] = process.argv.slice(2);
const book = JSON.parse(fs.readFileSync('data/notes.json', 'utf8'));

let notes = book.notes;
if (tag && tag !== 'null') {
  notes = notes.filter((n) => n.tags.includes(tag));
}

if (format === 'count') {
  console.log(JSON.stringify({ notebook: book.notebook, tag: tag === 'null' ? null : tag, count: notes.length }));
} else if (format === 'titles') {
  // a bare JSON array
  console.log(JSON.stringify(notes.map((n) => n.title)));
} else if (format === 'first') {
  // a single note: an object with a "content" array, which newer JP would
  // mistake for a content envelope
  if (notes.length === 0) {
    console.log('null');
  } else {
    console.log(JSON.stringify(notes[0], null, 2));
  }
} else {
  console.log(JSON.stringify({ notebook: book.notebook, notes }));
}
