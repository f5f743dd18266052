#!/usr/bin/env node
// Runs the Khronos glTF validator on one file and prints its report as JSON on stdout.
// Exit code: 0 when the report has no errors, 1 when it has errors, 2 when it could not run.
// Usage: node tools/validator/validate.js FILE
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

const file = process.argv[2];
if (!file) {
  console.error('usage: validate.js FILE');
  process.exit(2);
}
const bytes = new Uint8Array(fs.readFileSync(file));
validator.validateBytes(bytes, {
  uri: path.basename(file),
  maxIssues: 200,
  externalResourceFunction: (uri) => new Promise((resolve, reject) => {
    fs.readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)), (err, data) =>
      err ? reject(err.toString()) : resolve(new Uint8Array(data)));
  }),
}).then((report) => {
  process.stdout.write(JSON.stringify(report, null, 1) + '\n');
  process.exit(report.issues.numErrors > 0 ? 1 : 0);
}, (error) => {
  console.error(String(error));
  process.exit(2);
});
