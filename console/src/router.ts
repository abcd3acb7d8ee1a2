// The console's pages are paths (`/`, `/jobs/<id>`) that the server answers with the same
// index.html; moving between them is history.pushState, not a page load.
import { useEffect, useState } from "preact/hooks";

export type Route = { page: "jobs" } | { page: "job"; jobId: string } | { page: "missing" } | { page: "new" };

export function routeOf(path: string): Route {
  if (path === "/" || path === "" || path === "/jobs") return { page: "jobs" };
  if (path === "/new") return { page: "new" };
  const job = /^\/jobs\/([^/]+)$/.exec(path);
  if (job) return { page: "job", jobId: decodeURIComponent(job[1]) };
  return { page: "missing" };
}

export function go(path: string): void {
  history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate"));
}

export function useRoute(): Route {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const moved = () => setPath(location.pathname);
    addEventListener("popstate", moved);
    return () => removeEventListener("popstate", moved);
  }, []);
  return routeOf(path);
}

/** A click on an in-console link, without a modifier: a route change, not a page load. */
export function follow(event: MouseEvent, path: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
    return;
  }
  event.preventDefault();
  go(path);
}

// The admin pages (every caller sees them; what they may change is the API's to say).
export const ADMIN_PAGES = [
  { page: "pools", path: "/pools", title: "Pools" },
  { page: "nodes", path: "/nodes", title: "Nodes" },
  { page: "quotas", path: "/quotas", title: "Quotas" },
  { page: "workloads", path: "/workloads", title: "GPUWorkloads" },
] as const;

export type AdminPage = (typeof ADMIN_PAGES)[number]["page"];

export function adminPageOf(path: string): AdminPage | null {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  return ADMIN_PAGES.find((page) => page.path === trimmed)?.page ?? null;
}
