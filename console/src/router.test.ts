import { describe, expect, it } from "vitest";
import { routeOf } from "./router";

describe("routeOf", () => {
  it("maps the console's paths to its pages", () => {
    expect(routeOf("/")).toEqual({ page: "jobs" });
    expect(routeOf("/jobs/alice.train-1")).toEqual({ page: "job", jobId: "alice.train-1" });
    expect(routeOf("/nodes")).toEqual({ page: "missing" });
  });
});
