// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { forgetToken, keepToken, savedToken } from "./session";

describe("session", () => {
  it("keeps the token in sessionStorage only, and forgets it", () => {
    keepToken("abc");
    expect(sessionStorage.getItem("gpuctl.token")).toBe("abc");
    expect(localStorage.length).toBe(0);
    expect(document.cookie).toBe("");
    expect(savedToken()).toBe("abc");
    forgetToken();
    expect(savedToken()).toBeNull();
  });
});
