#!/usr/bin/env node
'use strict';
require('../out/src/cli/bin.js');
