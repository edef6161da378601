import { ApiError } from './api';
import { session } from './session';

/**
 * Saves a file the API serves only with the bearer token (no cookie): a plain link cannot carry
 * it, so the file is fetched with the token and saved from a blob URL. A refusal is thrown as the
 * API's ApiError (its stable code), for the caller to word.
 */
export async function downloadWithToken(href: string, filename: string): Promise<void> {
  const token = session.value?.token;
  const response = await fetch(href, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
    throw new ApiError(response.status, body.code ?? `HTTP_${response.status}`, body.message ?? response.statusText);
  }
  const url = URL.createObjectURL(await response.blob());
  const save = document.createElement('a');
  save.href = url;
  save.download = filename;
  save.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
