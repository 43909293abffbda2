import { languageFromCustomer } from '../../../../domain/shared/languages';

describe('language of a customer record', () => {
  it.each([
    ['hindi', 'hi'],
    ['Hindi', 'hi'],
    [' HINDI ', 'hi'],
    ['हिन्दी', 'hi'],
    ['हिंदी', 'hi'],
    ['english', 'en'],
    ['marathi', 'mr'],
    ['मराठी', 'mr'],
    ['tamil', 'ta'],
    ['தமிழ்', 'ta'],
    ['telugu', 'te'],
    ['gujarati', 'gu'],
    ['kannada', 'kn'],
    ['malayalam', 'ml'],
    ['bengali', 'bn'],
    ['bangla', 'bn'],
    ['বাংলা', 'bn'],
    ['punjabi', 'pa'],
    ['odia', 'od'],
    ['oriya', 'od'],
    ['ଓଡ଼ିଆ', 'od'],
    ['assamese', 'as'],
    ['অসমীয়া', 'as'],
    ['od', 'od'],
    ['as', 'as'],
    ['ta', 'ta'],
    ['hi-IN', 'hi'],
    ['ta_IN', 'ta'],
  ])('reads %j as %s', (word, code) => expect(languageFromCustomer(word, 'en')).toBe(code));

  it('falls back for a missing, empty or unknown word', () => {
    expect(languageFromCustomer(undefined, 'kn')).toBe('kn');
    expect(languageFromCustomer('', 'kn')).toBe('kn');
    expect(languageFromCustomer('klingon', 'kn')).toBe('kn');
    expect(languageFromCustomer('french', 'ml')).toBe('ml');
  });
});
