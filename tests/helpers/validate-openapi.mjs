// Validates the OpenAPI document on stdin against the OpenAPI 3.x schemas (the validator is an ES
// module, which Jest's CommonJS tests cannot load); prints {valid, version, errors} as JSON.
import { Validator } from '@seriousme/openapi-schema-validator';

let text = '';
for await (const chunk of process.stdin) text += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(text));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? [] }));
