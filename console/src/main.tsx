import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type Caller, Client } from "./api";
import { JobPage } from "./pages/Job";
import { JobsPage } from "./pages/Jobs";
import { Login } from "./pages/Login";
import { LazyNewJob } from "./pages/NewJobLazy";
import { follow, useRoute } from "./router";
import { ADMIN_PAGES, adminPageOf } from "./router";
import { NodesPage } from "./pages/Nodes";
import { PoolsPage } from "./pages/Pools";
import { QuotasPage } from "./pages/Quotas";
import { WorkloadsPage } from "./pages/Workloads";
import { forgetToken, savedToken } from "./session";
import "./style.css";

function App() {
  const [client, setClient] = useState<Client | null>(() => {
    const token = savedToken();
    return token ? new Client(token) : null;
  });
  const [caller, setCaller] = useState<Caller | null>(null);
  const route = useRoute();

  useEffect(() => {
    if (client && !caller) {
      client.whoAmI().then(setCaller, () => signOut());
    }
  }, [client, caller]);

  useEffect(() => {
    document.title = route.page === "job" ? `${route.jobId} · gpuctl` : "Jobs · gpuctl";
    if (route.page === "new") document.title = "New job · gpuctl";
  }, [route]);
  const adminPage = adminPageOf(location.pathname);
  useEffect(() => {
    const shown = ADMIN_PAGES.find((page) => page.page === adminPage);
    if (shown) document.title = `${shown.title} · gpuctl`;
  }, [route, adminPage]);

  function signOut() {
    forgetToken();
    setClient(null);
    setCaller(null);
  }

  if (!client) {
    return (
      <Login
        onSignedIn={(signed, who) => {
          setClient(signed);
          setCaller(who);
        }}
      />
    );
  }
  return (
    <>
      <header class="bar">
        <a class="brand" href="/" onClick={(e) => follow(e, "/")}>
          gpuctl
        </a>
        <nav aria-label="Pages">
          <a href="/" onClick={(e) => follow(e, "/")} aria-current={route.page === "jobs" ? "page" : undefined}>
            Jobs
          </a>
          <a href="/new" onClick={(e) => follow(e, "/new")} aria-current={route.page === "new" ? "page" : undefined}>
            New job
          </a>
          {ADMIN_PAGES.map((page) => (
            <a
              key={page.page}
              href={page.path}
              onClick={(e) => follow(e, page.path)}
              aria-current={adminPage === page.page ? "page" : undefined}
            >
              {page.title}
            </a>
          ))}
        </nav>
        <span class="who" data-testid="who">
          {caller ? `${caller.user} (${caller.role})` : ""}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        {route.page === "jobs" && <JobsPage client={client} admin={caller?.role === "admin"} />}
        {route.page === "job" && <JobPage client={client} jobId={route.jobId} />}
        {route.page === "new" && <LazyNewJob client={client} />}
        {adminPage === "pools" && <PoolsPage client={client} />}
        {adminPage === "nodes" && <NodesPage client={client} />}
        {adminPage === "quotas" && <QuotasPage client={client} />}
        {adminPage === "workloads" && <WorkloadsPage client={client} />}
        {route.page === "missing" && !adminPage && (
          <section>
            <h1>Not found</h1>
            <p>
              No console page at {location.pathname}. <a href="/" onClick={(e) => follow(e, "/")}>All jobs</a>
            </p>
          </section>
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
