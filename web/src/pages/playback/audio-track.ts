// Both sides' recorded audio on one clock. Every file is fetched (with the bearer token, so
// no token goes into a URL) and decoded once; playing from t schedules each clip that ends
// after t on one AudioContext at its offset, a clip under t from the middle — so a seek
// mid-utterance plays the rest of it. The AudioContext's clock is the page's clock while
// playing, so transcript and code follow what is heard.
import { ApiError } from '../../shared/api';
import type { AudioClip } from './timeline';

export type TrackState = 'idle' | 'loading' | 'ready' | 'playing' | 'paused' | 'failed';

interface Loaded {
  clip: AudioClip;
  buffer: AudioBuffer;
}

export class AudioTrack {
  private context: AudioContext | null = null;
  private loaded: Loaded[] = [];
  private loading: Promise<void> | null = null;
  private sources: AudioBufferSourceNode[] = [];
  private startedAt = 0; // context time when position `fromMs` was playing
  private fromMs = 0;
  private speed = 1;
  failures = 0;
  state: TrackState = 'idle';

  constructor(
    readonly clips: AudioClip[],
    private readonly token: string | null,
  ) {}

  get playing(): boolean {
    return this.sources.length > 0;
  }

  /** The AudioContext needs a user gesture to run: call this from one (play, a key). */
  async prepare(): Promise<void> {
    this.context ??= new AudioContext();
    if (this.context.state === 'suspended') await this.context.resume();
    this.loading ??= this.load(this.context);
    await this.loading;
  }

  private async load(context: AudioContext): Promise<void> {
    this.state = 'loading';
    const results = await Promise.all(
      this.clips.map(async (clip) => {
        try {
          const headers: Record<string, string> = {};
          if (this.token) headers.Authorization = `Bearer ${this.token}`;
          const response = await fetch(clip.url, { headers });
          if (!response.ok) throw new ApiError(response.status, 'audio', `audio ${response.status}`);
          return { clip, buffer: await context.decodeAudioData(await response.arrayBuffer()) };
        } catch {
          this.failures += 1; // one unreadable file must not silence the rest
          return null;
        }
      }),
    );
    this.loaded = results.filter((r): r is Loaded => r !== null);
    this.state = this.clips.length && !this.loaded.length ? 'failed' : 'ready';
  }

  /** Plays every clip from position `ms` at `speed`. */
  play(ms: number, speed: number): void {
    this.stop();
    const context = this.context;
    if (!context) return;
    this.speed = speed;
    this.fromMs = ms;
    this.startedAt = context.currentTime + 0.05;
    for (const { clip, buffer } of this.loaded) {
      const end = clip.t_ms + buffer.duration * 1000;
      if (end <= ms) continue;
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.playbackRate.value = speed;
      source.connect(context.destination);
      const wait = Math.max(0, (clip.t_ms - ms) / 1000 / speed);
      const offset = Math.max(0, (ms - clip.t_ms) / 1000);
      source.start(this.startedAt + wait, offset);
      this.sources.push(source);
    }
    this.state = 'playing';
  }

  /** The position (ms) the audio is at now, while playing. */
  position(): number {
    if (!this.context) return this.fromMs;
    return this.fromMs + Math.max(0, this.context.currentTime - this.startedAt) * 1000 * this.speed;
  }

  /** Whether a clip is sounding at the current position (what the page reports as playing). */
  audibleAt(ms: number): boolean {
    return this.context?.state === 'running' && this.playing && this.loaded.some(({ clip, buffer }) => clip.t_ms <= ms && ms < clip.t_ms + buffer.duration * 1000);
  }

  stop(): void {
    for (const source of this.sources) {
      try {
        source.stop();
      } catch {
        // never started: nothing to stop
      }
      source.disconnect();
    }
    this.sources = [];
    if (this.state === 'playing') this.state = 'paused';
  }

  dispose(): void {
    this.stop();
    void this.context?.close();
    this.context = null;
  }
}
