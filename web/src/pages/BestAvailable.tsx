import { useState } from 'preact/hooks';
import type { Section } from '../api';
import { money } from '../format';
import { t } from '../i18n';

export interface BestAvailableRequest {
  readonly quantity: number;
  readonly section?: string;
}

export interface BestAvailableProps {
  /** The sections drawn on the map (seated, sold by seat), in map order. */
  readonly sections: readonly Section[];
  /** Free seats per section, live; a section not listed yet counts as having some. */
  readonly left: ReadonlyMap<string, number>;
  /** The most seats one request may ask for. */
  readonly max: number;
  readonly disabled: boolean;
  onFind(request: BestAvailableRequest): void;
}

/**
 * "Find best N", in any section or in the one the buyer picks (each named with its price). The
 * server chooses: seats nearest the stage as the map draws it, side by side where possible.
 */
export function BestAvailable({ sections, left, max, disabled, onFind }: BestAvailableProps) {
  const [quantity, setQuantity] = useState(2);
  const [section, setSection] = useState('');
  const freeIn = (id: string) => left.get(id) ?? Number.POSITIVE_INFINITY;
  const free = section === '' ? sections.reduce((n, s) => n + freeIn(s.id), 0) : freeIn(section);
  return (
    <div class="best-available" data-testid="best-available">
      <h2>{t('bestAvailable')}</h2>
      <p class="muted">{t('bestNearStage')}</p>
      {sections.length > 1 && (
        <div class="row">
          <label for="best-section">{t('bestSection')}</label>
          <select id="best-section" data-testid="best-section" value={section} onChange={(e) => setSection((e.target as HTMLSelectElement).value)}>
            <option value="">{t('bestAnySection')}</option>
            {sections.map((s) => (
              <option key={s.id} value={s.id} disabled={freeIn(s.id) === 0}>
                {freeIn(s.id) === 0 ? t('bestSectionSoldOut', { section: s.name }) : t('bestSectionOption', { section: s.name, price: money(s.priceCents) })}
              </option>
            ))}
          </select>
        </div>
      )}
      <div class="row">
        <label for="best-quantity">{t('quantity')}</label>
        <select id="best-quantity" data-testid="best-quantity" value={quantity} onChange={(e) => setQuantity(Number((e.target as HTMLSelectElement).value))}>
          {Array.from({ length: max }, (_, k) => k + 1).map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
        <button type="button" data-testid="hold-best" disabled={disabled || free === 0} onClick={() => onFind(section === '' ? { quantity } : { quantity, section })}>
          {t('holdBest', { n: quantity })}
        </button>
      </div>
    </div>
  );
}
