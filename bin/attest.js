#!/usr/bin/env node
'use strict';
require('../out/src/cli/main.js').main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
