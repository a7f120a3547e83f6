// SessionConnection against a scripted socket: resume after the last seq on reconnect,
// de-duplication of replayed events, and messages queued while disconnected.
import assert from 'node:assert/strict';
import { test } from 'node:test';

class FakeSocket {
  static OPEN = 1;
  static instances: FakeSocket[] = [];
  readyState = 0;
  binaryType = 'blob';
  sent: (string | ArrayBuffer)[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: unknown }) => void) | null = null;
  onclose: ((c: { code: number; reason: string }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
  }
  send(data: string | ArrayBuffer) {
    this.sent.push(data);
  }
  close() {
    this.readyState = 3;
  }
  serverOpen() {
    this.readyState = 1;
    this.onopen?.();
  }
  serverSend(event: object) {
    this.onmessage?.({ data: JSON.stringify(event) });
  }
  serverDrop(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code, reason: '' });
  }
  json() {
    return this.sent.filter((s): s is string => typeof s === 'string').map((s) => JSON.parse(s));
  }
}

const timers: (() => void)[] = [];
Object.assign(globalThis, {
  WebSocket: FakeSocket,
  location: { protocol: 'http:', host: 'viva.test', href: 'http://viva.test/interview/s1' },
  window: {
    addEventListener() {},
    removeEventListener() {},
    setTimeout(fn: () => void) {
      timers.push(fn);
      return timers.length;
    },
    clearTimeout() {},
  },
});

const { SessionConnection, ticketedSocketUrl } = await import('../src/connection/session-connection');
const { ApiError } = await import('../src/shared/api');

test('every socket URL carries a fresh ticket, never the token, on this origin', async () => {
  const asked: { path: string; token: string | null | undefined }[] = [];
  let n = 0;
  const post = async <T>(path: string, _body: unknown, token?: string | null): Promise<T> => {
    asked.push({ path, token });
    n += 1;
    return { ticket: `tk${n}`, expires_in_s: 60 } as T;
  };
  const url = ticketedSocketUrl('s 1', 't&k', 'ws://0.0.0.0:9/ws/sessions/s%201?ticket=old', post);
  assert.equal(await url(), 'ws://viva.test/ws/sessions/s%201?ticket=tk1');
  assert.equal(await url(), 'ws://viva.test/ws/sessions/s%201?ticket=tk2');
  assert.deepEqual(asked, [
    { path: '/api/sessions/s%201/ticket', token: 't&k' },
    { path: '/api/sessions/s%201/ticket', token: 't&k' },
  ]);
  assert.ok(!(await url()).includes('t&k'));
});

test('a socket opens once its ticket arrives; a refused token stops the retries', async () => {
  const states: string[] = [];
  const before = FakeSocket.instances.length;
  const connection = new SessionConnection(async () => 'ws://viva.test/ws?ticket=a', {
    onEvent: () => undefined,
    onAudio: () => undefined,
    onState: (s) => states.push(s),
    onOpen: () => undefined,
  });
  connection.connect();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(FakeSocket.instances.length, before + 1);
  assert.equal(FakeSocket.instances.at(-1)!.url, 'ws://viva.test/ws?ticket=a');
  connection.close();

  timers.length = 0;
  const refused = new SessionConnection(async () => {
    throw new ApiError(403, 'forbidden', 'this token does not belong to that session');
  }, {
    onEvent: () => undefined,
    onAudio: () => undefined,
    onState: (s) => states.push(s),
    onOpen: () => undefined,
    onRefused: (detail, status) => refusals.push(`${status} ${detail}`),
  });
  const refusals: string[] = [];
  refused.connect();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(FakeSocket.instances.length, before + 1);
  assert.equal(timers.length, 0);
  assert.equal(states.at(-1), 'closed');
  // The page is told, once, so it can say so instead of a room that never opens.
  assert.deepEqual(refusals, ['403 this token does not belong to that session']);
});

test('reconnect resumes after the last seq and drops replayed duplicates', () => {
  const seen: string[] = [];
  const opens: boolean[] = [];
  const connection = new SessionConnection('ws://viva.test/ws', {
    onEvent: (e) => seen.push(`${e.type}#${e.seq}`),
    onAudio: () => undefined,
    onState: () => undefined,
    onOpen: (socket, reconnect) => {
      opens.push(reconnect);
      if (!reconnect) socket.send({ type: 'start' });
    },
  });
  connection.connect();
  const first = FakeSocket.instances.at(-1)!;
  first.serverOpen();
  assert.deepEqual(first.json(), [{ type: 'resume', after_seq: 0 }, { type: 'start' }]);
  first.serverSend({ type: 'question', seq: 1, text: 'Q', question_id: 'q', phase: 'warmup', turn_id: 't' });
  first.serverSend({ type: 'state', seq: 2, phase: 'warmup' });
  first.serverDrop();

  // Typed while offline: queued, not lost.
  connection.send({ type: 'answer', text: 'offline answer' });
  connection.sendAudio(new ArrayBuffer(1280));
  assert.equal(timers.length, 1);
  timers.shift()!();
  const second = FakeSocket.instances.at(-1)!;
  assert.notEqual(second, first);
  second.serverOpen();
  const sent = second.json();
  assert.deepEqual(sent[0], { type: 'resume', after_seq: 2 });
  assert.deepEqual(sent[1], { type: 'answer', text: 'offline answer' });
  assert.equal(second.sent.filter((s) => s instanceof ArrayBuffer).length, 1);
  // The server replays from its own cursor: an overlap must not show twice.
  second.serverSend({ type: 'state', seq: 2, phase: 'warmup' });
  second.serverSend({ type: 'feedback', seq: 3, kind: 'comment', text: 'ok' });
  second.serverSend({ type: 'error', seq: 0, code: 'x', message: 'unsequenced errors always show' });
  assert.deepEqual(seen, ['question#1', 'state#2', 'feedback#3', 'error#0']);
  assert.deepEqual(opens, [false, true]);
  connection.close();
});

test('audio_config goes ahead of the first frame on every socket', () => {
  const connection = new SessionConnection('ws://viva.test/ws', {
    onEvent: () => undefined,
    onAudio: () => undefined,
    onState: () => undefined,
    onOpen: () => undefined,
  });
  connection.setAudioConfig({ type: 'audio_config', sample_rate: 16000, encoding: 'pcm_s16le' });
  timers.length = 0;
  connection.connect();
  const socket = FakeSocket.instances.at(-1)!;
  connection.sendAudio(new ArrayBuffer(1280)); // the mic can start before the socket opens
  socket.serverOpen();
  connection.sendAudio(new ArrayBuffer(1280));
  const kinds = socket.sent.map((s) => (typeof s === 'string' ? JSON.parse(s).type : 'pcm'));
  assert.deepEqual(kinds, ['resume', 'audio_config', 'pcm', 'pcm']);
  socket.serverDrop();
  timers.shift()!();
  const next = FakeSocket.instances.at(-1)!;
  next.serverOpen();
  connection.sendAudio(new ArrayBuffer(1280));
  assert.deepEqual(next.sent.map((s) => (typeof s === 'string' ? JSON.parse(s).type : 'pcm')), ['resume', 'audio_config', 'pcm']);
  connection.close();
});

test('a refused token is final: no reconnect loop', () => {
  const states: string[] = [];
  const connection = new SessionConnection('ws://viva.test/ws', {
    onEvent: () => undefined,
    onAudio: () => undefined,
    onState: (s) => states.push(s),
    onOpen: () => undefined,
  });
  timers.length = 0;
  connection.connect();
  const socket = FakeSocket.instances.at(-1)!;
  socket.serverOpen();
  socket.serverDrop(1008);
  assert.equal(timers.length, 0);
  assert.equal(states.at(-1), 'closed');
});
