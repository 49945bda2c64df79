/**
 * The gateway's OpenAPI document as GET /api/openapi.json serves it, built in process: a gateway over a
 * throwaway SQLite database, not listening, its routes registered (http/route-docs.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../../gateway/src/gateway.ts';
import { openApiDocument } from '../../gateway/src/http/route-docs.ts';
import { createLogger } from '../../gateway/src/platform/logger.ts';

export async function openApiFromRoutes(serverUrl = 'http://localhost'): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-doc-'));
  try {
    const gw = await startGateway({
      env: {
        DATABASE_URL: `sqlite:${join(dir, 'doc.db')}`,
        CRYPTO_SECRET: 'openapi-document-only-0123456789abcdef',
        CONSOLE_ENABLED: 'false',
        GATEHOUSE_ROOT_PASSWORD: 'openapi-document-only',
      },
      listen: false,
      log: createLogger('silent'),
    });
    try {
      return openApiDocument(gw.app, serverUrl);
    } finally {
      await gw.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
