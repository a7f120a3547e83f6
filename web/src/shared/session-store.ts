// Tokens live in sessionStorage: they stay with the browser tab that started the interview
// (and survive its reloads) but are not shared with other tabs or kept after it closes.

export interface StoredSession {
  session_id: string;
  token: string;
  ws_url: string;
  mode: 'voice' | 'text';
  started: boolean;
}

const sessionKey = (id: string) => `viva.session.${id}`;
const REVIEWER_KEY = 'viva.reviewer-token';
const CANDIDATE_KEY = 'viva.candidate-id';

function readJson<T>(storage: Storage, key: string): T | null {
  try {
    const raw = storage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

export function loadSession(id: string): StoredSession | null {
  return readJson<StoredSession>(sessionStorage, sessionKey(id));
}

export function saveSession(session: StoredSession): void {
  sessionStorage.setItem(sessionKey(session.session_id), JSON.stringify(session));
}

export function markStarted(id: string): void {
  const session = loadSession(id);
  if (session && !session.started) saveSession({ ...session, started: true });
}

export function loadReviewerToken(): string | null {
  return sessionStorage.getItem(REVIEWER_KEY);
}

export function saveReviewerToken(token: string | null): void {
  if (token) sessionStorage.setItem(REVIEWER_KEY, token);
  else sessionStorage.removeItem(REVIEWER_KEY);
}

/** The candidate id is not a secret: remembered across visits to save typing. */
export function loadCandidateId(): string {
  return localStorage.getItem(CANDIDATE_KEY) ?? '';
}

export function saveCandidateId(id: string): void {
  localStorage.setItem(CANDIDATE_KEY, id);
}
