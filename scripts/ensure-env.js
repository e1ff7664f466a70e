#!/usr/bin/env node
// Runs before develop, build, start and test, so a fresh clone works with no manual setup.
'use strict';

const generated = require('../tools/support/app/ensure-env').ensureEnv();
if (generated.length > 0) console.error(`ensure-env: generated ${generated.join(', ')} into .env`);
