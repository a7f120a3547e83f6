// Microphone capture: getUserMedia → AudioWorklet (capture-worklet.ts) → 16 kHz PCM16 frames.
// Failures become a MicrophoneError whose message tells the candidate what to do.

export type MicrophoneProblem = 'denied' | 'absent' | 'busy' | 'insecure' | 'unsupported';

export class MicrophoneError extends Error {
  constructor(
    readonly problem: MicrophoneProblem,
    message: string,
  ) {
    super(message);
    this.name = 'MicrophoneError';
  }
}

const MESSAGES: Record<MicrophoneProblem, string> = {
  denied:
    'Microphone access was blocked. Allow the microphone for this site (the icon in the address bar), then press “Use microphone”, or type your answers below.',
  absent: 'No microphone was found. Plug one in and press “Use microphone”, or type your answers below.',
  busy: 'The microphone is in use by another application. Close it and press “Use microphone”, or type your answers below.',
  insecure:
    'The browser only allows the microphone on https:// or http://localhost pages. Open Viva that way, or type your answers below.',
  unsupported: 'This browser cannot capture audio here. Use a recent Chrome, Edge or Firefox, or type your answers below.',
};

export function microphoneError(problem: MicrophoneProblem): MicrophoneError {
  return new MicrophoneError(problem, MESSAGES[problem]);
}

function classify(error: unknown): MicrophoneError {
  const name = error instanceof DOMException || error instanceof Error ? error.name : '';
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
    case 'PermissionDeniedError':
      return microphoneError('denied');
    case 'NotFoundError':
    case 'OverconstrainedError':
    case 'DevicesNotFoundError':
      return microphoneError('absent');
    case 'NotReadableError':
    case 'AbortError':
    case 'TrackStartError':
      return microphoneError('busy');
    default:
      return microphoneError('unsupported');
  }
}

export interface FrameSink {
  (pcm: ArrayBuffer, level: number): void;
}

export class Microphone {
  private muted = false;

  private constructor(
    private readonly stream: MediaStream,
    private readonly source: MediaStreamAudioSourceNode,
    private readonly node: AudioWorkletNode,
    private readonly sink: FrameSink,
  ) {
    node.port.onmessage = (event: MessageEvent<{ pcm: ArrayBuffer; level: number }>) => {
      const { pcm, level } = event.data;
      // While muted, silence keeps flowing so the server's turn timing stays live.
      this.sink(this.muted ? new ArrayBuffer(pcm.byteLength) : pcm, this.muted ? 0 : level);
    };
    for (const track of stream.getAudioTracks()) {
      track.addEventListener('ended', () => this.onEnded?.());
    }
  }

  onEnded: (() => void) | null = null;

  static async open(context: AudioContext, sink: FrameSink): Promise<Microphone> {
    if (!window.isSecureContext) throw microphoneError('insecure');
    if (!navigator.mediaDevices?.getUserMedia || typeof AudioWorkletNode === 'undefined') {
      throw microphoneError('unsupported');
    }
    let stream: MediaStream;
    try {
      // Echo cancellation keeps the interviewer's own voice (from speakers) out of the
      // candidate's audio, so it cannot barge in on itself.
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
      });
    } catch (error) {
      throw classify(error);
    }
    try {
      await context.audioWorklet.addModule('/assets/capture-worklet.js');
      const source = context.createMediaStreamSource(stream);
      const node = new AudioWorkletNode(context, 'pcm16-capture', {
        numberOfInputs: 1,
        numberOfOutputs: 0,
        channelCount: 1,
        channelCountMode: 'explicit',
      });
      source.connect(node);
      return new Microphone(stream, source, node, sink);
    } catch (error) {
      for (const track of stream.getTracks()) track.stop();
      throw error instanceof MicrophoneError ? error : classify(error);
    }
  }

  get isMuted(): boolean {
    return this.muted;
  }

  setMuted(muted: boolean): void {
    this.muted = muted;
    for (const track of this.stream.getAudioTracks()) track.enabled = !muted;
  }

  /** Disconnects the graph and releases the device; otherwise silent frames keep flowing. */
  stop(): void {
    this.node.port.onmessage = null;
    this.source.disconnect();
    this.node.disconnect();
    for (const track of this.stream.getTracks()) track.stop();
  }
}
