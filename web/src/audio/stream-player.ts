// Plays the interviewer's streamed PCM16 chunks gap-free by scheduling one
// AudioBufferSourceNode per chunk back to back. `stop()` (barge-in) silences it at once.

const START_LEAD_S = 0.06; // a little headroom so the first chunks do not underrun

export class StreamPlayer {
  private sampleRate = 22050;
  private turnId: string | null = null;
  private nextTime = 0;
  private carry: Uint8Array | null = null; // odd trailing byte of the previous chunk
  private readonly sources = new Set<AudioBufferSourceNode>();
  private ended = true;
  private speaking = false;

  constructor(
    private readonly context: AudioContext,
    private readonly onSpeaking: (speaking: boolean, turnId: string | null) => void,
  ) {}

  get currentTurn(): string | null {
    return this.turnId;
  }

  /** Whether audio is still scheduled or sounding. */
  get isSpeaking(): boolean {
    return this.speaking;
  }

  begin(turnId: string, sampleRate: number): void {
    this.stop();
    this.turnId = turnId;
    this.sampleRate = sampleRate;
    this.ended = false;
    this.nextTime = 0;
  }

  /** Audio for a turn that already ended or was stopped (a replay) is ignored. */
  push(chunk: ArrayBuffer): void {
    if (this.turnId === null || this.ended) return;
    let bytes = new Uint8Array(chunk);
    if (this.carry) {
      const joined = new Uint8Array(this.carry.length + bytes.length);
      joined.set(this.carry);
      joined.set(bytes, this.carry.length);
      bytes = joined;
      this.carry = null;
    }
    if (bytes.length % 2 === 1) {
      this.carry = bytes.slice(bytes.length - 1);
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    if (bytes.length === 0) return;
    const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    const buffer = this.context.createBuffer(1, samples.length, this.sampleRate);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < samples.length; i++) channel[i] = samples[i] / 0x8000;
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.context.destination);
    const now = this.context.currentTime;
    const at = Math.max(this.nextTime, now + START_LEAD_S);
    source.start(at);
    this.nextTime = at + buffer.duration;
    this.sources.add(source);
    source.onended = () => {
      this.sources.delete(source);
      this.settle();
    };
    this.setSpeaking(true);
  }

  /** The server finished sending this turn; playing continues until the queue drains. */
  end(turnId: string): void {
    if (turnId !== this.turnId) return;
    this.ended = true;
    this.settle();
  }

  /** Barge-in: silence now and drop whatever was scheduled. */
  stop(): void {
    this.ended = true;
    this.carry = null;
    for (const source of this.sources) {
      source.onended = null;
      try {
        source.stop();
      } catch {
        // never started: nothing to stop
      }
      source.disconnect();
    }
    this.sources.clear();
    this.setSpeaking(false);
  }

  private settle(): void {
    if (this.sources.size === 0 && this.ended) this.setSpeaking(false);
  }

  private setSpeaking(speaking: boolean): void {
    if (speaking === this.speaking) return;
    this.speaking = speaking;
    this.onSpeaking(speaking, this.turnId);
  }
}
