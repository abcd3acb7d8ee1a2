import { describe, expect, it } from "vitest";
import { age, gpusShown, imageParts, logsMayExist, statusLabel, whenShown } from "./format";

describe("age", () => {
  const now = Date.parse("2026-01-02T00:00:00Z");
  it("writes seconds, minutes, hours and days as kubectl does", () => {
    expect(age("2026-01-01T23:59:15Z", now)).toBe("45s");
    expect(age("2026-01-01T23:48:00Z", now)).toBe("12m");
    expect(age("2026-01-01T21:00:00Z", now)).toBe("3h");
    expect(age("2025-12-28T00:00:00Z", now)).toBe("5d");
  });
  it("writes a dash for no time or an unreadable one", () => {
    expect(age(null, now)).toBe("-");
    expect(age("yesterday", now)).toBe("-");
  });
});

describe("statusLabel", () => {
  it("writes the API's status words as the status rules do", () => {
    expect(statusLabel("partially-running")).toBe("Partially running");
    expect(statusLabel("running")).toBe("Running");
  });
});

describe("gpusShown", () => {
  it("writes whole GPUs with their type, a gpu-share job's share instead of 0", () => {
    expect(gpusShown({ gpu: 2, gpuShare: null, gpuType: "A100" })).toBe("2 × A100");
    expect(gpusShown({ gpu: 0, gpuShare: "20Gi", gpuType: null })).toBe("20Gi shared");
    expect(gpusShown({ gpu: 0, gpuShare: "4Gi", gpuType: "a10-24g" })).toBe("4Gi shared on a10-24g");
    expect(gpusShown({ gpu: 0, gpuShare: null, gpuType: null })).toBe("0");
  });
});

describe("whenShown", () => {
  it("writes a local time and an age, the API's ISO time as its title", () => {
    const now = Date.parse("2026-01-02T00:03:00Z");
    const shown = whenShown("2026-01-02T00:00:00Z", now);
    expect(shown.title).toBe("2026-01-02T00:00:00Z");
    expect(shown.text).toMatch(/\(3m ago\)$/);
    expect(shown.text).not.toContain("T00:00:00Z");
    expect(whenShown(null, now)).toEqual({ text: "-", title: "" });
  });
});

describe("imageParts", () => {
  it("cuts an image name after / : and @ only", () => {
    expect(imageParts("registry.example.com/team/pytorch-training:2.3.0-cuda12")).toEqual([
      "registry.example.com/", "team/", "pytorch-training:", "2.3.0-cuda12",
    ]);
    expect(imageParts("busybox")).toEqual(["busybox"]);
  });
});

describe("logsMayExist", () => {
  it("is false for a pending job whose pods never started", () => {
    expect(logsMayExist({ status: "pending", startedAt: null })).toBe(false);
    expect(logsMayExist({ status: "queued", startedAt: null })).toBe(false);
    expect(logsMayExist({ status: "running", startedAt: null })).toBe(true);
    expect(logsMayExist({ status: "pending", startedAt: "2026-01-01T00:00:00Z" })).toBe(true);
  });
});
