/** A WhatsApp delivery error's `href` is rendered as a link only when it is an https address (docs/console.md). */
import { documentationLink } from '../../../console/src/pages/logs/model';

describe("a delivery error's documentation link", () => {
  it('keeps an https address', () => {
    const href = 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/#131026';
    expect(documentationLink(href)).toBe(href);
  });

  it.each([
    'javascript:alert(document.cookie)',
    ' JavaScript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'http://developers.facebook.com/docs',
    '//evil.example/phish',
    '/console/logs',
    'not a url',
    '',
    undefined,
  ])('shows %p as text, not a link', (href) => {
    expect(documentationLink(href)).toBeNull();
  });
});
