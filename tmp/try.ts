import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
extendZodWithOpenApi(z);
import { textGenerationSchema, resultsQuerySchema } from '../app/utils/generation-schema';
const r = new OpenAPIRegistry();
r.registerPath({ method: 'post', path: '/api/generate/text', request: { body: { content: { 'application/json': { schema: textGenerationSchema() } } } }, responses: { 200: { description: 'ok' } } });
const doc = new OpenApiGeneratorV31(r.definitions).generateDocument({ openapi: '3.1.0', info: { title: 'x', version: '1' } });
console.log(JSON.stringify(doc).slice(0, 3000));
