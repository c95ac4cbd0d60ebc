import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../app/http/api-document.server';

// The document as the tools our API users run read it: Redocly's recommended rules and Spectral's
// OpenAPI rules find no error, and openapi-typescript turns it into types. The three CLIs come from
// node_modules (dev dependencies): nothing is fetched while the suite runs.

const run = promisify(execFile);
const bin = (name: string) => path.resolve(__dirname, '../../node_modules/.bin', name);
// Neither tool may phone home from CI (telemetry, update checks).
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };

let dir: string;
let file: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(openApiDocument(), null, 2));
  fs.writeFileSync(path.join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
  fs.writeFileSync(path.join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A CLI's stdout, whatever its exit code (both linters exit 1 on errors; the report says which). */
async function output(command: string, args: string[]): Promise<string> {
  try {
    return (await run(bin(command), args, { cwd: dir, env, maxBuffer: 32 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    if (!failed.stdout) throw new Error(`${command} failed: ${failed.stderr ?? String(error)}`);
    return failed.stdout;
  }
}

describe('the OpenAPI document under the linters and generators of its users', () => {
  it('@redocly/cli lint (recommended rules): no error', async () => {
    const report = JSON.parse(await output('redocly', ['lint', file, '--config', 'redocly.yaml', '--format=json'])) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const errors = report.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);

  it('Spectral (spectral:oas): no error', async () => {
    const problems = JSON.parse(await output('spectral', ['lint', file, '-r', '.spectral.yaml', '-f', 'json', '--quiet'])) as {
      code: string;
      severity: number;
      message: string;
      path: string[];
    }[];
    // Severity 0 is an error in Spectral's report.
    expect(problems.filter((p) => p.severity === 0).map((p) => `${p.code} ${p.path.join('.')}: ${p.message}`)).toEqual([]);
  }, 60_000);

  it('openapi-typescript generates types from it', async () => {
    const out = path.join(dir, 'api.d.ts');
    await run(bin('openapi-typescript'), [file, '-o', out], { cwd: dir, env });
    const types = fs.readFileSync(out, 'utf8');
    expect(types).toContain('export interface paths');
    expect(types).toContain('"/api/generate/text"');
    expect(types).toContain('WebhookEvent');
  }, 60_000);

  it('the linters do fail a broken document (the premise of the checks above)', async () => {
    const broken = JSON.parse(fs.readFileSync(file, 'utf8')) as { components: { schemas: Record<string, unknown> } };
    delete broken.components.schemas.WebhookEvent;
    const brokenFile = path.join(dir, 'broken.json');
    fs.writeFileSync(brokenFile, JSON.stringify(broken));
    const redocly = JSON.parse(await output('redocly', ['lint', brokenFile, '--config', 'redocly.yaml', '--format=json'])) as {
      totals: { errors: number };
    };
    expect(redocly.totals.errors).toBeGreaterThan(0);
    const spectral = JSON.parse(await output('spectral', ['lint', brokenFile, '-r', '.spectral.yaml', '-f', 'json', '--quiet'])) as {
      severity: number;
    }[];
    expect(spectral.some((p) => p.severity === 0)).toBe(true);
  }, 60_000);
});
