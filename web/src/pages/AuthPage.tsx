import { useState } from 'preact/hooks';
import { api } from '../api';
import { errorText } from '../errors';
import { t } from '../i18n';
import { navigate, nextPath, signInHref } from '../router';
import { signIn, type Role } from '../session';

/**
 * Sign in or sign up. `back`: embedded in another page (a bargain's share page lets a newcomer
 * register on the spot), the page to stay on afterwards; its heading is then a sub-heading.
 */
export function AuthPage({ mode, back }: { mode: 'signin' | 'signup'; back?: string }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const next = back ?? nextPath();

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (mode === 'signup') await api('/auth/register', { method: 'POST', body: { username, password } });
      const login = await api<{ token: string; expiresInSeconds: number; role: Role }>('/auth/login', { method: 'POST', body: { username, password } });
      signIn({ token: login.token, username, role: login.role, expiresAt: Date.now() + login.expiresInSeconds * 1000 });
      // Back where the buyer came from (the show, with the selection kept), else the start page.
      navigate(next ?? (login.role === 'STAFF' ? '/door' : '/'));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="narrow">
      {back === undefined ? <h1>{mode === 'signin' ? t('signInTitle') : t('signUpTitle')}</h1> : <h2>{mode === 'signin' ? t('signInTitle') : t('signUpTitle')}</h2>}
      <form onSubmit={(e) => void submit(e)}>
        <label for="username">{t('username')}</label>
        <input id="username" name="username" autocomplete="username" required minLength={3} maxLength={64} pattern="[A-Za-z0-9_.@\-]+"
          value={username} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} aria-describedby="username-hint" />
        <small id="username-hint">{t('usernameHint')}</small>
        <label for="password">{t('password')}</label>
        <input id="password" name="password" type="password" autocomplete={mode === 'signin' ? 'current-password' : 'new-password'} required minLength={8} maxLength={256}
          value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} aria-describedby="password-hint" />
        <small id="password-hint">{t('passwordHint')}</small>
        {error !== null && <p class="notice" role="alert">{error}</p>}
        <button type="submit" class="primary" disabled={busy}>{mode === 'signin' ? t('submitSignIn') : t('submitSignUp')}</button>
      </form>
      <p>{mode === 'signin'
        ? <a href={next === null ? '/signup' : signInHref(next, '/signup')}>{t('needAccount')}</a>
        : <a href={next === null ? '/signin' : signInHref(next, '/signin')}>{t('haveAccount')}</a>}</p>
    </section>
  );
}
