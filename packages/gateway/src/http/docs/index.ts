/**
 * What the OpenAPI document says beyond its operations (title, tags, shared schemas, security
 * schemes), and the described operations of routes that do not declare their own schemas yet, by
 * method and path. The document itself is built from the registered routes (http/route-docs.ts).
 */
import { schemas } from './components-core.ts';
import './components-more.ts';
import { type Schema, withRequiredFields } from './kit.ts';
import { mainPathsB } from './paths-tasks.ts';
import { mcpPaths } from './paths-security.ts';

export type { Schema } from './kit.ts';

/** Operations by OpenAPI path and lower-case method. */
export function describedPaths(): Record<string, Record<string, Schema>> {
  const admin = 'admin',
    root = 'root';
  return {
    ...mainPathsB(admin, root),
    ...mcpPaths(admin),
  };
}

/** The document's parts that no route carries. */
export function documentBase(): Schema & { components: { schemas: Record<string, Schema>; securitySchemes: Schema } } {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gatehouse API',
      version: '1',
      description:
        'Admin API (envelope {success, message, data}; lists put {items, total, page, page_size} in data) and the OpenAI-style model-call endpoints.',
    },
    tags: [
      'account',
      'usage',
      'users',
      'keys',
      'channels',
      'prices',
      'options',
      'audit',
      'alerts',
      'logs',
      'tasks',
      'plugins',
      'model calls',
      'health',
      'redemption',
      'top-up',
      'plans',
      'teams',
      'sso',
    ].map((name) => ({ name })),
    components: {
      schemas: withRequiredFields(schemas),
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'gatehouse_session' },
        accessToken: { type: 'http', scheme: 'bearer', description: 'personal access token from POST /api/user/token' },
        apiKey: { type: 'http', scheme: 'bearer', description: 'instance API key sk-…' },
      },
    },
  };
}
