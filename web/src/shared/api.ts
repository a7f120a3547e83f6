// HTTP calls of contract.md. Every failure becomes an ApiError carrying the server's error
// envelope, so pages can show the server's own message and what to do.
import type { SessionCreate, SessionCreated } from './protocol';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  token?: string | null;
  accept?: string;
}

async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch {
    throw new ApiError(0, 'network', 'Cannot reach the Viva server. Check that it is running, then retry.');
  }
  if (!response.ok) throw await errorFrom(response);
  return response;
}

async function errorFrom(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; details?: unknown } };
    if (body.error && typeof body.error.message === 'string') {
      return new ApiError(response.status, body.error.code ?? 'error', body.error.message, body.error.details);
    }
  } catch {
    // Not the JSON envelope (a proxy page, say): fall through to the status line.
  }
  return new ApiError(response.status, 'http_error', `The server answered ${response.status} ${response.statusText}.`);
}

export async function getJson<T>(path: string, token?: string | null): Promise<T> {
  return (await (await request(path, { token })).json()) as T;
}

export async function postJson<T>(path: string, body: unknown, token?: string | null): Promise<T> {
  return (await (await request(path, { method: 'POST', body, token })).json()) as T;
}

/** Reads an NDJSON body: one JSON value a line; blank lines are skipped. */
export async function getNdjson<T>(path: string, token?: string | null): Promise<T[]> {
  const text = await (await request(path, { token, accept: 'application/x-ndjson' })).text();
  return parseNdjson<T>(text);
}

export function parseNdjson<T>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed) out.push(JSON.parse(trimmed) as T);
  }
  return out;
}

export function createSession(body: SessionCreate): Promise<SessionCreated> {
  return postJson<SessionCreated>('/api/sessions', body);
}

/** A human sentence for an error, including field problems from a 422. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = fieldProblems(error.details);
    return fields.length ? `${error.message} ${fields.join('; ')}.` : error.message;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

function fieldProblems(details: unknown): string[] {
  if (!Array.isArray(details)) return [];
  const out: string[] = [];
  for (const item of details) {
    if (typeof item !== 'object' || item === null) continue;
    const { loc, msg } = item as { loc?: unknown; msg?: unknown };
    if (typeof msg !== 'string') continue;
    const where = Array.isArray(loc) ? loc.filter((p) => p !== 'body').join('.') : '';
    out.push(where ? `${where}: ${msg}` : msg);
  }
  return out;
}

export async function getText(path: string, token?: string | null): Promise<string> {
  return (await request(path, { token, accept: 'text/plain, text/vtt' })).text();
}
