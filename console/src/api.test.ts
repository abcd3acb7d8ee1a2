import { describe, expect, it } from "vitest";
import { API, ApiFailure, Client, type JobItem, jobsQuery, logProtocols, logsUrl, signInProblem } from "./api";

function job(n: number): JobItem {
  return {
    jobId: `alice.job-${n}`, name: `job-${n}`, namespace: "alice", kind: "training", pool: "default",
    status: "running", ready: "1/1", gpu: 1, gpuShare: null, gpuType: null, createdAt: null, startedAt: null,
  };
}

function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

describe("Client", () => {
  it("sends the token as a bearer header, never in the URL", async () => {
    const seen: { url: string; auth: string | null }[] = [];
    const client = new Client("s3cret", async (input, init) => {
      seen.push({ url: String(input), auth: new Headers(init?.headers).get("Authorization") });
      return answer(200, { total: 0, items: [] });
    });
    await client.jobs({});
    expect(seen).toEqual([{ url: `${API}/jobs?page=1&pageSize=1000`, auth: "Bearer s3cret" }]);
  });

  it("reads every page of a long list", async () => {
    const all = Array.from({ length: 2500 }, (_, n) => job(n));
    const client = new Client("t", async (input) => {
      const query = new URL(String(input), "http://x").searchParams;
      const page = Number(query.get("page"));
      const size = Number(query.get("pageSize"));
      return answer(200, { total: all.length, items: all.slice((page - 1) * size, page * size) });
    });
    const found = await client.jobs({ status: "running" });
    expect(found.map((j) => j.jobId)).toEqual(all.map((j) => j.jobId));
  });

  it("sends the last answer's ETag and keeps the same rows on 304", async () => {
    const sent: (string | null)[] = [];
    const list = { total: 1, items: [job(1)] };
    const client = new Client("t", async (_input, init) => {
      const tag = new Headers(init?.headers).get("If-None-Match");
      sent.push(tag);
      expect(init?.cache).toBe("no-store");
      if (tag === 'W/"one"') return new Response(null, { status: 304, headers: { ETag: 'W/"one"' } });
      return new Response(JSON.stringify(list), { status: 200, headers: { ETag: 'W/"one"' } });
    });
    const [first, changedFirst] = await client.jobsIfChanged({});
    const [again, changedAgain] = await client.jobsIfChanged({});
    expect(sent).toEqual([null, 'W/"one"']);
    expect(changedFirst).toBe(true);
    expect(changedAgain).toBe(false);
    expect(again).toEqual(first);
    expect(await client.jobsIfChanged({ kind: "training" })).toEqual([first, true]); // its own tag
  });

  it("gives a job's detail as the same object when it is unchanged", async () => {
    let calls = 0;
    const client = new Client("t", async (_input, init) => {
      calls += 1;
      if (new Headers(init?.headers).get("If-None-Match") === 'W/"d1"') return new Response(null, { status: 304 });
      return new Response(JSON.stringify({ jobId: "a.b" }), { status: 200, headers: { ETag: 'W/"d1"' } });
    });
    const first = await client.job("a.b");
    expect(await client.job("a.b")).toBe(first);
    expect(calls).toBe(2);
  });

  it("asks again without a tag when an answer carried none", async () => {
    const sent: (string | null)[] = [];
    const client = new Client("t", async (_input, init) => {
      sent.push(new Headers(init?.headers).get("If-None-Match"));
      return answer(200, { total: 0, items: [] });
    });
    await client.jobs({});
    await client.jobs({});
    expect(sent).toEqual([null, null]);
  });

  it("fails with the API's own message", async () => {
    const client = new Client("wrong", async () =>
      answer(401, { error: "Unauthorized", message: "unknown token: ask your admin for one" }),
    );
    await expect(client.whoAmI()).rejects.toThrow("unknown token: ask your admin for one");
  });

  it("says what came back when the answer is not the error shape", async () => {
    const client = new Client("t", async () => new Response("<html>bad gateway</html>", { status: 502 }));
    await expect(client.job("a.b")).rejects.toThrow("the server answered 502");
  });
});

describe("jobsQuery", () => {
  it("sends only the filters chosen", () => {
    expect(jobsQuery({ kind: "training", pool: "", status: "failed" }, 2, 50)).toBe(
      "kind=training&status=failed&page=2&pageSize=50",
    );
  });
});

describe("log stream", () => {
  it("carries the token in a subprotocol, base64url without padding, not in the URL", () => {
    const [first, bearer] = logProtocols("tok/en+?");
    expect(first).toBe("logs.gpuctl.v1");
    expect(bearer).toBe("base64url.bearer.authorization.k8s.io.dG9rL2VuKz8");
    const url = logsUrl({ protocol: "https:", host: "gpu.example:8443" } as Location, "alice.a", "p-0");
    expect(url).toBe("wss://gpu.example:8443/api/v1/jobs/alice.a/logs?tail=200&pod=p-0");
    expect(url).not.toContain("tok");
  });
});

describe("signInProblem", () => {
  it("says in words what went wrong, never the HTTP header", () => {
    const unknown = new ApiFailure(401, "Unauthorized", "give a valid token: Authorization: Bearer <token>");
    expect(signInProblem(unknown)).toMatch(/^That token is not known to this server\./);
    expect(signInProblem(unknown)).not.toMatch(/Bearer|Authorization|401/);
    const review = new ApiFailure(503, "AuthUnavailable", "the cluster serves no TokenReview API");
    expect(signInProblem(review)).toBe("The server cannot check tokens right now: the cluster serves no TokenReview API");
    expect(signInProblem(new TypeError("Failed to fetch"))).toMatch(/^The server did not answer/);
  });
});
