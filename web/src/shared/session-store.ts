// What rejoining one's own interviews needs (id, token, mode) lives in localStorage, scoped to
// this origin (issue 23): closing the tab no longer strands an interview, and the lobby lists
// them. The reviewer token stays in sessionStorage, with the tab.

export interface StoredSession {
  session_id: string;
  token: string;
  ws_url: string;
  mode: 'voice' | 'text';
  started: boolean;
  candidate_id?: string;
  created_at?: string;
  /** False: started without this candidate id's key, so not part of its progress. */
  joins_progress?: boolean;
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
  return readJson<StoredSession>(localStorage, sessionKey(id)) ?? readJson<StoredSession>(sessionStorage, sessionKey(id));
}

export function saveSession(session: StoredSession): void {
  const previous = loadSession(session.session_id);
  const kept: StoredSession = {
    ...session,
    candidate_id: session.candidate_id ?? previous?.candidate_id,
    created_at: session.created_at ?? previous?.created_at ?? new Date().toISOString(),
  };
  localStorage.setItem(sessionKey(session.session_id), JSON.stringify(kept));
}

/** A credential the server refused (wrong, or its session is gone): not offered again. */
export function forgetSession(id: string): void {
  localStorage.removeItem(sessionKey(id));
  sessionStorage.removeItem(sessionKey(id));
}

/** Every interview this browser can rejoin, newest first. */
export function storedSessions(): StoredSession[] {
  const out: StoredSession[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key?.startsWith('viva.session.')) continue;
    const session = readJson<StoredSession>(localStorage, key);
    if (session?.session_id && session.token) out.push(session);
  }
  return out.sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? ''));
}

/** A token of one of this candidate's sessions, for their progress page. */
export function tokenForCandidate(candidateId: string): string | null {
  return sessionOfCandidate(candidateId)?.token ?? null;
}

/** One interview of this candidate that this browser holds (its token opens their progress). */
export function sessionOfCandidate(candidateId: string): StoredSession | null {
  return storedSessions().find((s) => s.candidate_id === candidateId) ?? null;
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

// The candidate key (server/candidate_keys.py): the first interview under an id gets it, and
// this browser sends it with later ones so they join that id's progress. Another browser
// without it interviews under the same name, standing alone.
const candidateKeyKey = (id: string) => `viva.candidate-key.${id}`;

export function loadCandidateKey(id: string): string | null {
  return localStorage.getItem(candidateKeyKey(id));
}

export function saveCandidateKey(id: string, key: string): void {
  localStorage.setItem(candidateKeyKey(id), key);
}
