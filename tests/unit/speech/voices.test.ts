import { languageCodes, languages } from '../../../infrastructure/speech/languages';
import { publicVoices, voiceCatalog } from '../../../infrastructure/speech/voices';

describe('voice catalog', () => {
  it('lists the five voices of the product decisions, each speaking the twelve languages by display name', () => {
    expect(publicVoices.map((v) => [v.id, v.name, v.gender])).toEqual([
      ['Ogbs15oBevLzXsUuTtA1', 'Kartik', 'male'],
      ['Owbs15oBevLzXsUurdA_', 'Rahul', 'male'],
      ['PAbs15oBevLzXsUu4dCi', 'Nisha', 'female'],
      ['PQbt15oBevLzXsUuNtD3', 'Tulsi', 'female'],
      ['Pgbt15oBevLzXsUubdA6', 'Seema', 'female'],
    ]);
    for (const voice of publicVoices) {
      expect(voice.languages).toEqual([
        'English',
        'Hindi',
        'Marathi',
        'Tamil',
        'Telugu',
        'Gujarati',
        'Kannada',
        'Malayalam',
        'Bengali',
        'Punjabi',
        'Odia',
        'Assamese',
      ]);
      expect(voice.description.length).toBeGreaterThan(10);
      expect(Object.keys(voice).sort()).toEqual(['description', 'gender', 'id', 'languages', 'name']);
    }
  });

  it('gives every voice its own timbre', () => {
    const timbres = new Set(voiceCatalog.map((v) => JSON.stringify(v.timbre)));
    expect(timbres.size).toBe(5);
    expect(new Set(voiceCatalog.map((v) => v.timbre.variant)).size).toBe(5);
  });

  it('maps the twelve language codes to eSpeak voices, Odia to eSpeak "or"', () => {
    expect(languageCodes).toEqual(['en', 'hi', 'mr', 'ta', 'te', 'gu', 'kn', 'ml', 'bn', 'pa', 'od', 'as']);
    expect(languages.od.espeak).toBe('or');
  });
});
