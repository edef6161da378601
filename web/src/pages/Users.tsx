import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { t } from '../i18n';
import { role } from '../session';

type Role = 'BUYER' | 'STAFF' | 'ADMIN';
interface UserRow { readonly userId: string; readonly username: string; readonly role: Role }
interface UserPage { readonly users: readonly UserRow[]; readonly more: boolean }

const pageSize = 20;
/** Typing waits this long before asking, so a search is one request, not one per key. */
const searchDelayMs = 250;

/** The organizer's users page: find a user by name, give or take the door staff role. */
export function Users() {
  const [q, setQ] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<UserPage | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    if (role.value !== 'ADMIN') return;
    let alive = true;
    const timer = setTimeout(() => {
      const query = new URLSearchParams({ q, limit: String(pageSize), offset: String(offset) });
      void api<UserPage>(`/admin/users?${query}`).then((p) => alive && setPage(p), (err: unknown) => alive && setMessage({ ok: false, text: String(err instanceof Error ? err.message : err) }));
    }, searchDelayMs);
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [q, offset, version]);

  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;

  const setUserRole = async (user: UserRow, next: Role) => {
    setMessage(null);
    try {
      await api(`/admin/users/${encodeURIComponent(user.username)}/role`, { method: 'PUT', body: { role: next } });
      setMessage({ ok: true, text: t('roleChanged', { name: user.username, role: t(`role${next}`) }) });
      setVersion((v) => v + 1);
    } catch (err) {
      setMessage({ ok: false, text: err instanceof ApiError ? err.message : String(err) });
    }
  };

  return (
    <section>
      <h1>{t('usersTitle')}</h1>
      <p class="row"><a href="/admin">{t('organizerTitle')}</a></p>
      <label for="user-search">{t('usersSearch')}</label>{' '}
      <input id="user-search" type="search" maxLength={64} autocomplete="off" value={q}
        onInput={(e) => { setQ((e.target as HTMLInputElement).value.trim()); setOffset(0); }} />
      {message !== null && <p class={message.ok ? 'muted' : 'notice'} role={message.ok ? 'status' : 'alert'} data-testid="users-message">{message.text}</p>}
      {page === null ? <p role="status">{t('loading')}</p> : page.users.length === 0 ? <p>{t('usersNone')}</p> : (
        <div class="table-scroll" tabIndex={0} role="region" aria-label={t('usersTitle')}>
          <table class="users-table" data-testid="users">
            <thead><tr><th scope="col">{t('userName')}</th><th scope="col">{t('userRole')}</th><th scope="col"><span class="sr-only">{t('makeStaffShort')}</span></th></tr></thead>
            <tbody>
              {page.users.map((u) => (
                <tr key={u.userId} data-testid={`user-${u.username}`}>
                  <th scope="row">{u.username}</th>
                  <td>{t(`role${u.role}`)}</td>
                  <td>
                    {u.role === 'BUYER' && <button type="button" aria-label={t('makeStaff', { name: u.username })} onClick={() => void setUserRole(u, 'STAFF')}>{t('makeStaffShort')}</button>}
                    {u.role === 'STAFF' && <button type="button" aria-label={t('removeStaff', { name: u.username })} onClick={() => void setUserRole(u, 'BUYER')}>{t('removeStaffShort')}</button>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="row">
        <button type="button" disabled={offset === 0} onClick={() => setOffset((o) => Math.max(0, o - pageSize))}>{t('pagePrevious')}</button>
        <button type="button" disabled={page === null || !page.more} onClick={() => setOffset((o) => o + pageSize)}>{t('pageNext')}</button>
      </p>
    </section>
  );
}
