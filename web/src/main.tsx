import { render } from 'preact';
import { lang, languages, setLang, t, type Lang } from './i18n';
import { online } from './online';
import { Lazy } from './Lazy';
import { match, onLinkClick, path, navigate, signInHref } from './router';
import { role, session, signOut } from './session';
import { ShowList } from './pages/ShowList';
import { AuthPage } from './pages/AuthPage';
import { HoldBanner } from './HoldBanner';
import { refreshUnread, syncLanguage, unread } from './notifications';
import { effect } from '@preact/signals';
import './styles.css';

// Pages a first visit to the catalog does not need load when first opened: the home page's bundle
// carries no seat map, checkout or QR code (Lighthouse's blocking time on a phone).
const showPage = () => import('./pages/ShowPage').then((m) => m.ShowPage);
const orderPage = () => import('./pages/OrderPage').then((m) => m.OrderPage);
const myTickets = () => import('./pages/MyTickets').then((m) => m.MyTickets);
const organizer = () => import('./pages/Organizer').then((m) => m.Organizer);
const discounts = () => import('./pages/Discounts').then((m) => m.Discounts);
const createShow = () => import('./pages/CreateShow').then((m) => m.CreateShow);
const liveSale = () => import('./pages/LiveSale').then((m) => m.LiveSale);
const users = () => import('./pages/Users').then((m) => m.Users);
const activities = () => import('./pages/Activities').then((m) => m.Activities);
const flashSalePage = () => import('./pages/FlashSalePage').then((m) => m.FlashSalePage);
const bargainPage = () => import('./pages/BargainPage').then((m) => m.BargainPage);
const bargainOrderPage = () => import('./pages/BargainPage').then((m) => m.BargainOrderPage);
const createBargain = () => import('./pages/CreateBargain').then((m) => m.CreateBargain);
const campaigns = () => import('./pages/Campaigns').then((m) => m.Campaigns);
const createFlashSale = () => import('./pages/Campaigns').then((m) => m.CreateFlashSale);
const door = () => import('./door/DoorPage').then((m) => m.DoorPage);
const codePool = () => import('./pages/CodePoolPage').then((m) => m.CodePoolPage);
const myCodes = () => import('./pages/MyCodes').then((m) => m.MyCodes);
const myWaitlist = () => import('./pages/MyWaitlist').then((m) => m.MyWaitlist);
const createCodePool = () => import('./pages/CreateCodePool').then((m) => m.CreateCodePool);
const manageCodePool = () => import('./pages/ManageCodePool').then((m) => m.ManageCodePool);
const attendees = () => import('./door/AttendeesPage').then((m) => m.AttendeesPage);
const notifications = () => import('./pages/Notifications').then((m) => m.Notifications);
const auditLog = () => import('./pages/AuditLog').then((m) => m.AuditLog);
const blocklist = () => import('./pages/Blocklist').then((m) => m.Blocklist);
const queuePage = () => import('./pages/QueuePage').then((m) => m.QueuePage);

function Page() {
  const p = path.value;
  let params: Record<string, string> | null;
  if (p === '/' || p === '/shows') return <ShowList />;
  if ((params = match('/shows/:showId', p))) return <Lazy key={params.showId} load={showPage} props={{ showId: params.showId ?? '' }} />;
  if ((params = match('/orders/:orderId', p))) return <Lazy key={params.orderId} load={orderPage} props={{ orderId: params.orderId ?? '' }} />;
  if (p === '/activities') return <Lazy load={activities} props={{}} />;
  if ((params = match('/flash-sales/:flashSaleId', p))) return <Lazy key={params.flashSaleId} load={flashSalePage} props={{ flashSaleId: params.flashSaleId ?? '' }} />;
  if ((params = match('/bargains/:bargainId', p))) return <Lazy key={params.bargainId} load={bargainPage} props={{ bargainId: params.bargainId ?? '' }} />;
  if ((params = match('/bargain-orders/:bargainOrderId', p))) return <Lazy key={params.bargainOrderId} load={bargainOrderPage} props={{ bargainOrderId: params.bargainOrderId ?? '' }} />;
  if ((params = match('/queue/:activityId', p))) return <Lazy key={`queue:${params.activityId}`} load={queuePage} props={{ activityId: params.activityId ?? '' }} />;
  if (p === '/tickets') return <Lazy load={myTickets} props={{}} />;
  if (p === '/codes') return <Lazy load={myCodes} props={{}} />;
  if (p === '/waitlist') return <Lazy load={myWaitlist} props={{}} />;
  if (p === '/notifications') return <Lazy load={notifications} props={{}} />;
  if ((params = match('/codes/:poolId', p))) return <Lazy key={params.poolId} load={codePool} props={{ poolId: params.poolId ?? '' }} />;
  if (p === '/signin') return <AuthPage mode="signin" />;
  if (p === '/signup') return <AuthPage mode="signup" />;
  // Organizer and door pages need an account: signed out, say so and offer to sign in and come back.
  if (session.value === null && (p === '/admin' || p.startsWith('/admin/') || p === '/door')) return <SignInFirst door={p === '/door'} />;
  if (p === '/admin') return <Lazy load={organizer} props={{}} />;
  if (p === '/admin/new') return <Lazy load={createShow} props={{}} />;
  if (p === '/admin/campaigns') return <Lazy load={campaigns} props={{}} />;
  if (p === '/admin/flash-sales/new') return <Lazy load={createFlashSale} props={{}} />;
  if (p === '/admin/bargains/new') return <Lazy load={createBargain} props={{}} />;
  if (p === '/admin/users') return <Lazy load={users} props={{}} />;
  if (p === '/admin/discounts') return <Lazy load={discounts} props={{}} />;
  if (p === '/admin/audit-log') return <Lazy load={auditLog} props={{}} />;
  if (p === '/admin/blocklist') return <Lazy load={blocklist} props={{}} />;
  if (p === '/admin/code-pools/new') return <Lazy load={createCodePool} props={{}} />;
  if ((params = match('/admin/code-pools/:poolId', p))) return <Lazy key={params.poolId} load={manageCodePool} props={{ poolId: params.poolId ?? '' }} />;
  if ((params = match('/admin/shows/:showId', p))) return <Lazy load={liveSale} props={{ showId: params.showId ?? '' }} />;
  if ((params = match('/admin/shows/:showId/attendees', p))) return <Lazy load={attendees} props={{ showId: params.showId ?? '' }} />;
  if (p === '/door') return <Lazy load={door} props={{}} />;
  return <p>{t('notFound')} <a href="/">{t('backToShows')}</a></p>;
}

function SignInFirst({ door }: { door: boolean }) {
  return (
    <section class="narrow" data-testid="sign-in-first">
      <h1>{door ? t('doorTitle') : t('organizerTitle')}</h1>
      <p>{door ? t('needStaff') : t('needAdmin')}</p>
      <p><a class="button primary" href={signInHref()}>{t('signInToContinue')}</a></p>
    </section>
  );
}

function Header() {
  const who = session.value;
  const r = role.value;
  const p = path.value;
  // Signing in from a page comes back to it (not from the start page or the sign-in pages themselves).
  const comeBack = p !== '/' && p !== '/signin' && p !== '/signup';
  return (
    <header class="top">
      <a href="/" class="brand">{t('appName')}</a>
      <nav aria-label={t('mainNav')}>
        <a href="/">{t('navShows')}</a>
        <a href="/activities">{t('navActivities')}</a>
        {who !== null && <a href="/tickets">{t('navTickets')}</a>}
        {who !== null && <a href="/codes">{t('navCodes')}</a>}
        {who !== null && <a href="/waitlist">{t('navWaitlist')}</a>}
        {who !== null && <a href="/notifications" data-testid="nav-notifications">{unread.value > 0 ? t('navNotificationsUnread', { n: unread.value }) : t('navNotifications')}</a>}
        {r === 'ADMIN' && <a href="/admin">{t('navOrganizer')}</a>}
        {(r === 'STAFF' || r === 'ADMIN') && <a href="/door">{t('navDoor')}</a>}
      </nav>
      <div class="top-right">
        <span class={`net ${online.value ? 'net-on' : 'net-off'}`} role="status" data-testid="net-status">
          <span aria-hidden="true">{online.value ? '●' : '○'}</span> {online.value ? t('online') : t('offline')}
        </span>
        <label class="lang">
          <span class="sr-only">{t('language')}</span>
          <select value={lang.value} onChange={(e) => { setLang((e.target as HTMLSelectElement).value as Lang); void syncLanguage(); }} aria-label={t('language')}>
            {languages.map((l) => <option key={l.code} value={l.code}>{l.name}</option>)}
          </select>
        </label>
        {who === null ? (
          <>
            <a href={comeBack ? signInHref() : '/signin'}>{t('navSignIn')}</a>
            <a href={comeBack ? signInHref(undefined, '/signup') : '/signup'}>{t('navSignUp')}</a>
          </>
        ) : (
          <>
            <span class="who">{t('signedInAs', { name: who.username })}</span>
            <button type="button" onClick={() => { signOut(); navigate('/'); }}>{t('navSignOut')}</button>
          </>
        )}
      </div>
    </header>
  );
}

function App() {
  // Reading lang here re-renders everything when the language changes.
  void lang.value;
  return (
    <div onClick={onLinkClick}>
      <a class="skip" href="#main">{t('skipToContent')}</a>
      <Header />
      <main id="main" tabIndex={-1}>
        <HoldBanner />
        <Page />
      </main>
    </div>
  );
}

// On signing in (and on each page opened), the badge's count; on signing in, the language emails
// are written in is this page's.
let signedInAs: string | null = null;
effect(() => {
  const token = session.value?.token ?? null;
  void path.value;
  void refreshUnread();
  if (token !== null && token !== signedInAs) void syncLanguage();
  signedInAs = token;
});

render(<App />, document.getElementById('app') as HTMLElement);

if ('serviceWorker' in navigator) {
  addEventListener('load', () => void navigator.serviceWorker.register('/sw.js').catch(() => undefined));
}
