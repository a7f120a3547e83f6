/** What the router hands a page: URL parameters and in-app navigation. */
export interface PageContext {
  params: string[];
  query: URLSearchParams;
  navigate(path: string): void;
}

/** Renders into `root`; returns the cleanup run when the user leaves the page. */
export type Page = (root: HTMLElement, context: PageContext) => () => void;
