'use strict';
/** Where the host app is, for every tool that starts it, builds it or reads its files. */
const path = require('path');

const APP_DIR = path.join(__dirname, '..', '..', '..');

module.exports = { APP_DIR };
