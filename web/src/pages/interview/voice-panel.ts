// Microphone controls: turn the mic on or off, mute, a level meter, and what went wrong.
import { Microphone, MicrophoneError } from '../../audio/microphone';
import { h } from '../../shared/dom';

export interface VoicePanelHooks {
  /** Resumes the shared AudioContext inside the click that asked for the mic. */
  audioContext(): AudioContext;
  onFrame(pcm: ArrayBuffer): void;
  onStopped(): void;
  /** The candidate says they are done, without waiting for the silence window. */
  onEndTurn(): void;
}

export class VoicePanel {
  readonly element: HTMLElement;
  private microphone: Microphone | null = null;
  private starting = false;
  private readonly toggle = h('button', { type: 'button', class: 'secondary', 'data-testid': 'mic-toggle' }, 'Use microphone');
  private readonly mute = h(
    'button',
    { type: 'button', class: 'secondary', 'data-testid': 'mute', 'aria-pressed': 'false', disabled: true },
    'Mute',
  );
  private readonly endTurn = h(
    'button',
    { type: 'button', class: 'secondary', 'data-testid': 'end-turn', disabled: true, title: 'Send your answer now instead of waiting for a pause' },
    'Done speaking',
  );
  private readonly meterFill = h('span', { class: 'meter-fill' });
  private readonly meter = h(
    'span',
    { class: 'meter', role: 'meter', 'aria-label': 'Microphone level', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0' },
    this.meterFill,
  );
  private readonly status = h('p', { class: 'mic-status', 'data-testid': 'mic-status', 'data-state': 'off', role: 'status' }, 'Microphone off.');
  private lastMeterUpdate = 0;

  constructor(private readonly hooks: VoicePanelHooks) {
    this.toggle.addEventListener('click', () => void (this.microphone ? this.stop() : this.start()));
    this.mute.addEventListener('click', () => this.setMuted(!this.microphone?.isMuted));
    this.endTurn.addEventListener('click', () => this.hooks.onEndTurn());
    this.element = h(
      'section',
      { class: 'voice-panel', 'aria-label': 'Microphone' },
      h('div', { class: 'voice-controls' }, this.toggle, this.mute, this.endTurn, this.meter),
      this.status,
    );
  }

  get active(): boolean {
    return this.microphone !== null;
  }

  async start(): Promise<void> {
    if (this.microphone || this.starting) return;
    this.starting = true;
    this.setStatus('starting', 'Asking for the microphone…');
    try {
      const context = this.hooks.audioContext();
      if (context.state !== 'running') await context.resume();
      this.microphone = await Microphone.open(context, (pcm, level) => {
        this.hooks.onFrame(pcm);
        this.showLevel(level);
      });
      this.microphone.onEnded = () => {
        this.stop();
        this.setStatus('error', 'The microphone was disconnected. Plug it back in and press “Use microphone”, or type your answers.');
      };
      this.toggle.textContent = 'Stop microphone';
      this.mute.disabled = false;
      this.endTurn.disabled = false;
      this.setStatus('live', 'Listening. Speak your answer; pause when you are done.');
    } catch (error) {
      const message =
        error instanceof MicrophoneError ? error.message : `The microphone could not start: ${String(error)}. Type your answers instead.`;
      this.setStatus('error', message, error instanceof MicrophoneError ? error.problem : 'unknown');
    } finally {
      this.starting = false;
    }
  }

  stop(): void {
    if (!this.microphone) return;
    this.microphone.stop();
    this.microphone = null;
    this.toggle.textContent = 'Use microphone';
    this.mute.disabled = true;
    this.endTurn.disabled = true;
    this.mute.setAttribute('aria-pressed', 'false');
    this.mute.textContent = 'Mute';
    this.showLevel(0, true);
    this.setStatus('off', 'Microphone off. Type your answers, or press “Use microphone”.');
    this.hooks.onStopped();
  }

  disable(): void {
    this.stop();
    this.toggle.disabled = true;
  }

  private setMuted(muted: boolean): void {
    if (!this.microphone) return;
    this.microphone.setMuted(muted);
    this.mute.setAttribute('aria-pressed', String(muted));
    this.mute.textContent = muted ? 'Unmute' : 'Mute';
    this.setStatus(muted ? 'muted' : 'live', muted ? 'Muted: Viva hears silence until you unmute.' : 'Listening.');
  }

  private showLevel(level: number, force = false): void {
    const now = performance.now();
    if (!force && now - this.lastMeterUpdate < 80) return;
    this.lastMeterUpdate = now;
    // Speech RMS sits around 0.02–0.3: a square root spreads it over the meter.
    const percent = Math.min(100, Math.round(Math.sqrt(level) * 180));
    this.meterFill.style.transform = `scaleX(${percent / 100})`;
    this.meter.setAttribute('aria-valuenow', String(percent));
  }

  private setStatus(state: string, message: string, problem?: string): void {
    this.status.dataset.state = state;
    if (problem) this.status.dataset.problem = problem;
    else delete this.status.dataset.problem;
    this.status.textContent = message;
    this.status.setAttribute('role', state === 'error' ? 'alert' : 'status');
  }
}
