// @ts-check
// Background jobs of the API (GET /api/jobs/{id}/): a 202 {job, url} is followed until it ends.
import { api } from "./api.js";

/** An error carrying a failed job's cause ({field, detail}) like an API 400 carries its fields. */
export class JobFailed extends Error {
  constructor(job) {
    const error = job.error || {};
    super(error.detail || "The job failed.");
    this.job = job;
    this.field = error.field || null;
  }

  fieldErrors() {
    return this.field ? { [this.field]: this.message } : {};
  }
}

/**
 * Poll the job at `url` every `interval` ms, telling `onProgress(job)` each time, until it succeeds (the job
 * is returned) or fails (JobFailed is thrown).
 * @param {string} url
 * @param {((job: any) => void) | null} [onProgress]
 * @param {{interval?: number, signal?: AbortSignal}} [options]
 */
export async function followJob(url, onProgress, { interval = 1000, signal } = {}) {
  const path = new URL(url, window.location.href).pathname;
  for (;;) {
    const job = await api.get(path, { signal });
    if (onProgress) onProgress(job);
    if (job.status === "succeeded") return job;
    if (job.status === "failed") throw new JobFailed(job);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
