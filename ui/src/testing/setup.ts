/**
 * Test-wide settings for the component tests. CI runs them on a loaded 2-core machine where a
 * React update after a fake IPC answer can take well over testing-library's default one second;
 * these waits are not speed checks (benchmarks measure speed), so they get room to finish.
 */
import { configure } from "@testing-library/react";

configure({ asyncUtilTimeout: 5_000 });
