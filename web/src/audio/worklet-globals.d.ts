// The AudioWorkletGlobalScope names the TypeScript DOM library does not declare.
declare const sampleRate: number;
declare function registerProcessor(name: string, ctor: new (options?: unknown) => AudioWorkletProcessorBase): void;
declare class AudioWorkletProcessorBase {
  readonly port: MessagePort;
}
declare const AudioWorkletProcessor: typeof AudioWorkletProcessorBase;
interface MessagePort {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: { data: unknown }) => void) | null;
}
type Transferable = ArrayBuffer;
