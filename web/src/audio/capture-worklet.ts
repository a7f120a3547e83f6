// AudioWorklet: microphone samples at the context rate → 16 kHz mono PCM16 frames of 40 ms.
// A low-pass biquad (7 kHz) removes what 16 kHz cannot carry, then linear interpolation
// resamples. Each frame is posted with its RMS level for the meter.
const TARGET_RATE = 16000;
const FRAME_SAMPLES = 640; // 40 ms at 16 kHz: inside the contract's 20–100 ms

class Pcm16Capture extends AudioWorkletProcessor {
  private readonly step = sampleRate / TARGET_RATE;
  private position = 0; // fractional read position into the filtered stream
  private previous = 0; // last filtered sample of the previous block
  private frame = new Int16Array(FRAME_SAMPLES);
  private filled = 0;
  private sumSquares = 0;
  // Biquad low-pass coefficients (RBJ cookbook) and state.
  private b0 = 1;
  private b1 = 0;
  private b2 = 0;
  private a1 = 0;
  private a2 = 0;
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  constructor() {
    super();
    if (this.step > 1) {
      const cutoff = Math.min(7000, sampleRate * 0.45);
      const w0 = (2 * Math.PI * cutoff) / sampleRate;
      const alpha = Math.sin(w0) / (2 * Math.SQRT1_2);
      const cos = Math.cos(w0);
      const a0 = 1 + alpha;
      this.b0 = (1 - cos) / 2 / a0;
      this.b1 = (1 - cos) / a0;
      this.b2 = (1 - cos) / 2 / a0;
      this.a1 = (-2 * cos) / a0;
      this.a2 = (1 - alpha) / a0;
    }
  }

  process(inputs: Float32Array[][]): boolean {
    const channel = inputs[0]?.[0];
    if (!channel || channel.length === 0) return true;
    const filtered = new Float32Array(channel.length);
    for (let i = 0; i < channel.length; i++) {
      const x = channel[i];
      const y = this.b0 * x + this.b1 * this.x1 + this.b2 * this.x2 - this.a1 * this.y1 - this.a2 * this.y2;
      this.x2 = this.x1;
      this.x1 = x;
      this.y2 = this.y1;
      this.y1 = y;
      filtered[i] = y;
    }
    // position is relative to the start of this block; -1 refers to `previous`.
    while (this.position < filtered.length - 1 + 1e-9) {
      const index = Math.floor(this.position);
      const frac = this.position - index;
      const a = index < 0 ? this.previous : filtered[index];
      const b = filtered[Math.min(index + 1, filtered.length - 1)];
      this.emit(a + (b - a) * frac);
      this.position += this.step;
    }
    this.position -= filtered.length;
    this.previous = filtered[filtered.length - 1];
    return true;
  }

  private emit(sample: number): void {
    const clamped = Math.max(-1, Math.min(1, sample));
    this.sumSquares += clamped * clamped;
    this.frame[this.filled++] = clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff;
    if (this.filled === FRAME_SAMPLES) {
      const level = Math.sqrt(this.sumSquares / FRAME_SAMPLES);
      this.port.postMessage({ pcm: this.frame.buffer, level }, [this.frame.buffer]);
      this.frame = new Int16Array(FRAME_SAMPLES);
      this.filled = 0;
      this.sumSquares = 0;
    }
  }
}

registerProcessor('pcm16-capture', Pcm16Capture);
