// The interview websocket: connects, reconnects with backoff, and on every (re)connect asks the
// server to replay what this page has not seen (`resume` after the last seq), so nothing is
// lost; replayed events are de-duplicated by seq. Messages sent while disconnected are queued.
import { ApiError, postJson } from '../shared/api';
import { parseServerEvent, type ClientMessage, type ServerEvent, type TicketIssued } from '../shared/protocol';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface ConnectionHandlers {
  onEvent(event: ServerEvent): void;
  onAudio(chunk: ArrayBuffer): void;
  onState(state: ConnectionState, detail: string): void;
  /** Called after `resume` went out on a fresh socket, before queued messages are flushed. */
  onOpen(socket: { send(message: ClientMessage): void }, reconnect: boolean): void;
  /** After `session_end` the socket stays open until this settles: the closing words are
   * streamed after that event, and closing the socket at once would cut them off. */
  onSessionEnd?(): Promise<void>;
  /** The session token was refused (wrong, another interview's, or the session is gone):
   * no retry can help, so the page can say so instead of showing a room that never opens. */
  onRefused?(detail: string, status: number): void;
}

/** Close codes after which retrying cannot help (bad token, unknown or finished session). */
const FATAL_CLOSE_CODES = new Set([1008, 4001, 4003, 4004, 4401, 4403, 4404, 4410]);
// The server lets audio run at most 2 s ahead of real time: keep no more than that.
const MAX_QUEUED_AUDIO_BYTES = 16000 * 2 * 1.5; // 1.5 s of 16 kHz PCM16

/** Where a socket URL comes from: fixed, or asked for afresh before every (re)connect. */
export type SocketUrl = string | (() => Promise<string>);

/**
 * A URL for every (re)connect, each with a fresh one-time ticket bought with the session
 * token over `Authorization` (the token itself never goes into a URL: URLs are logged).
 * The server's ws_url may name a host the browser did not use (a proxy, 0.0.0.0): keep its
 * path, but talk to the origin this page came from.
 */
export function ticketedSocketUrl(
  sessionId: string,
  token: string,
  wsUrl?: string,
  post: typeof postJson = postJson,
): () => Promise<string> {
  return async () => {
    const id = encodeURIComponent(sessionId);
    const { ticket } = await post<TicketIssued>(`/api/sessions/${id}/ticket`, {}, token);
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const path = wsUrl ? new URL(wsUrl, location.href).pathname : `/ws/sessions/${id}`;
    return `${scheme}//${location.host}${path}?ticket=${encodeURIComponent(ticket)}`;
  };
}

export class SessionConnection {
  private socket: WebSocket | null = null;
  private lastSeq = 0;
  private attempts = 0;
  private everOpened = false;
  private stopped = false;
  private retryTimer: number | null = null;
  private urlRequests = 0; // the latest URL asked for wins
  private readonly textQueue: ClientMessage[] = [];
  private audioQueue: ArrayBuffer[] = [];
  private audioConfig: ClientMessage | null = null;
  private audioConfigSent = false; // on the current socket
  private audioQueuedBytes = 0;
  private readonly onOnline = () => {
    if (this.state === 'reconnecting') this.reconnectNow();
  };
  state: ConnectionState = 'connecting';

  constructor(
    private readonly url: SocketUrl,
    private readonly handlers: ConnectionHandlers,
  ) {
    window.addEventListener('online', this.onOnline);
  }

  get lastSeenSeq(): number {
    return this.lastSeq;
  }

  connect(): void {
    this.stopped = false;
    this.open();
  }

  /** Sends now when connected, else queues the message for the next connection. */
  send(message: ClientMessage): void {
    if (this.socket?.readyState === WebSocket.OPEN && this.state === 'open') {
      this.socket.send(JSON.stringify(message));
    } else {
      this.textQueue.push(message);
    }
  }

  /** The `audio_config` that must precede binary frames on every socket. */
  setAudioConfig(config: ClientMessage | null): void {
    this.audioConfig = config;
    this.audioConfigSent = false;
  }

  /** The latest 1.5 s of audio is kept through an outage, so a blip does not cut a word. */
  sendAudio(frame: ArrayBuffer): void {
    if (this.socket?.readyState === WebSocket.OPEN && this.state === 'open') {
      this.ensureAudioConfig(this.socket);
      this.socket.send(frame);
      return;
    }
    this.audioQueue.push(frame);
    this.audioQueuedBytes += frame.byteLength;
    while (this.audioQueuedBytes > MAX_QUEUED_AUDIO_BYTES && this.audioQueue.length) {
      this.audioQueuedBytes -= this.audioQueue.shift()!.byteLength;
    }
  }

  /** Drops queued audio (e.g. the microphone stopped); queued text is kept. */
  discardQueuedAudio(): void {
    this.audioQueue = [];
    this.audioQueuedBytes = 0;
  }

  close(): void {
    this.stopped = true;
    if (this.retryTimer !== null) window.clearTimeout(this.retryTimer);
    window.removeEventListener('online', this.onOnline);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, 'client closed');
    this.setState('closed', 'Disconnected.');
  }

  /** Skips the backoff wait (the user pressed "Reconnect now"). */
  reconnectNow(): void {
    if (this.stopped) return;
    if (this.retryTimer !== null) window.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.open();
  }

  private open(): void {
    if (this.stopped) return;
    this.setState(this.everOpened ? 'reconnecting' : 'connecting', this.everOpened ? 'Reconnecting…' : 'Connecting…');
    if (typeof this.url === 'string') {
      this.openSocket(this.url);
      return;
    }
    const attempt = ++this.urlRequests;
    this.url().then(
      (url) => {
        if (attempt === this.urlRequests && !this.stopped) this.openSocket(url);
      },
      (error: unknown) => {
        if (attempt !== this.urlRequests || this.stopped) return;
        if (error instanceof ApiError && [401, 403, 404, 410].includes(error.status)) {
          // The token was refused (or the session is gone): retrying cannot help.
          this.stopped = true;
          this.setState('closed', error.message);
          this.handlers.onRefused?.(error.message, error.status);
          return;
        }
        this.scheduleRetry();
      },
    );
  }

  private openSocket(url: string): void {
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      if (socket !== this.socket) return;
      const reconnect = this.everOpened;
      this.everOpened = true;
      this.audioConfigSent = false;
      this.attempts = 0;
      socket.send(JSON.stringify({ type: 'resume', after_seq: this.lastSeq } satisfies ClientMessage));
      this.handlers.onOpen({ send: (m) => socket.send(JSON.stringify(m)) }, reconnect);
      this.state = 'open';
      for (const message of this.textQueue.splice(0)) socket.send(JSON.stringify(message));
      if (this.audioQueue.length) this.ensureAudioConfig(socket);
      for (const frame of this.audioQueue) socket.send(frame);
      this.discardQueuedAudio();
      this.setState('open', 'Connected');
    };
    socket.onmessage = (message: MessageEvent) => {
      if (socket !== this.socket) return;
      if (message.data instanceof ArrayBuffer) {
        this.handlers.onAudio(message.data);
        return;
      }
      const event = parseServerEvent(String(message.data));
      if (!event) return;
      // seq 0 / none: not part of the recorded stream (e.g. a refusal before the session opens).
      if (typeof event.seq === 'number' && event.seq > 0) {
        if (event.seq <= this.lastSeq) return; // already seen before a reconnect
        this.lastSeq = event.seq;
      }
      this.handlers.onEvent(event);
      if (event.type === 'session_end' && !this.stopped) {
        // No reconnect from here on; events (the closing speech) keep arriving until the hold ends.
        this.stopped = true;
        const hold = this.handlers.onSessionEnd?.() ?? Promise.resolve();
        void hold.catch(() => undefined).then(() => this.finish('The interview has ended.'));
      }
    };
    socket.onclose = (close: CloseEvent) => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (FATAL_CLOSE_CODES.has(close.code)) {
        this.stopped = true;
        this.setState('closed', close.reason || 'The server refused this session. Start a new interview from the lobby.');
        return;
      }
      this.scheduleRetry();
    };
    // An error is always followed by close; the close handler decides what to do.
    socket.onerror = () => undefined;
  }

  private ensureAudioConfig(socket: WebSocket): void {
    if (this.audioConfigSent || !this.audioConfig) return;
    socket.send(JSON.stringify(this.audioConfig));
    this.audioConfigSent = true;
  }

  private finish(detail: string): void {
    this.stopped = true;
    if (this.retryTimer !== null) window.clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, 'session ended');
    this.setState('closed', detail);
  }

  private scheduleRetry(): void {
    this.attempts += 1;
    const base = Math.min(5000, 250 * 2 ** Math.min(this.attempts, 5));
    const delay = base / 2 + Math.random() * (base / 2);
    this.setState('reconnecting', `Connection lost. Reconnecting in ${Math.ceil(delay / 1000)} s…`);
    this.retryTimer = window.setTimeout(() => {
      this.retryTimer = null;
      this.open();
    }, delay);
  }

  private setState(state: ConnectionState, detail: string): void {
    this.state = state;
    this.handlers.onState(state, detail);
  }
}
