/**
 * The twelve languages of the speech interface and the eSpeak NG voice that speaks each. All twelve
 * exist in the bundled eSpeak data: Odia is `or` there (the API says `od`); English is eSpeak's `en`
 * (British English), whose vowels are nearer Indian English than `en-us`.
 */
import type { LanguageCode } from '../../application/ports/speech-engine';

export type Language = {
  /** Display name, as the voices list shows it. */
  name: string;
  /** eSpeak NG voice (language) name. */
  espeak: string;
  /** A short text in the language's own script, with a number; warming up with it loads the dictionary. */
  sample: string;
};

export const languages: Readonly<Record<LanguageCode, Language>> = {
  en: {
    name: 'English',
    espeak: 'en',
    sample: 'Hello! Your instalment of 4,500 rupees is due on 5 March, please pay on time. Thank you.',
  },
  hi: { name: 'Hindi', espeak: 'hi', sample: 'नमस्ते! आपकी किस्त 4,500 रुपये है, कृपया 5 मार्च तक भुगतान करें। धन्यवाद।' },
  mr: { name: 'Marathi', espeak: 'mr', sample: 'नमस्कार! तुमचा हप्ता 4,500 रुपये आहे, कृपया 5 मार्चपर्यंत भरा. धन्यवाद.' },
  ta: { name: 'Tamil', espeak: 'ta', sample: 'வணக்கம்! உங்கள் தவணை 4,500 ரூபாய், மார்ச் 5 க்குள் செலுத்தவும். நன்றி.' },
  te: { name: 'Telugu', espeak: 'te', sample: 'నమస్కారం! మీ వాయిదా 4,500 రూపాయలు, దయచేసి మార్చి 5 లోపు చెల్లించండి. ధన్యవాదాలు.' },
  gu: { name: 'Gujarati', espeak: 'gu', sample: 'નમસ્તે! તમારો હપ્તો 4,500 રૂપિયા છે, કૃપા કરીને 5 માર્ચ સુધીમાં ચૂકવો. આભાર.' },
  kn: { name: 'Kannada', espeak: 'kn', sample: 'ನಮಸ್ಕಾರ! ನಿಮ್ಮ ಕಂತು 4,500 ರೂಪಾಯಿ, ದಯವಿಟ್ಟು ಮಾರ್ಚ್ 5 ರೊಳಗೆ ಪಾವತಿಸಿ. ಧನ್ಯವಾದಗಳು.' },
  ml: { name: 'Malayalam', espeak: 'ml', sample: 'നമസ്കാരം! നിങ്ങളുടെ തവണ 4,500 രൂപയാണ്, ദയവായി മാർച്ച് 5 നകം അടയ്ക്കുക. നന്ദി.' },
  bn: {
    name: 'Bengali',
    espeak: 'bn',
    sample: 'নমস্কার! আপনার কিস্তি 4,500 টাকা, অনুগ্রহ করে 5 মার্চের মধ্যে পরিশোধ করুন। ধন্যবাদ।',
  },
  pa: {
    name: 'Punjabi',
    espeak: 'pa',
    sample: 'ਸਤ ਸ੍ਰੀ ਅਕਾਲ! ਤੁਹਾਡੀ ਕਿਸ਼ਤ 4,500 ਰੁਪਏ ਹੈ, ਕਿਰਪਾ ਕਰਕੇ 5 ਮਾਰਚ ਤੱਕ ਭੁਗਤਾਨ ਕਰੋ। ਧੰਨਵਾਦ।',
  },
  od: { name: 'Odia', espeak: 'or', sample: 'ନମସ୍କାର! ଆପଣଙ୍କ କିସ୍ତି 4,500 ଟଙ୍କା, ଦୟାକରି 5 ମାର୍ଚ୍ଚ ସୁଦ୍ଧା ପୈଠ କରନ୍ତୁ। ଧନ୍ୟବାଦ।' },
  as: {
    name: 'Assamese',
    espeak: 'as',
    sample: 'নমস্কাৰ! আপোনাৰ কিস্তি 4,500 টকা, অনুগ্ৰহ কৰি 5 মাৰ্চৰ ভিতৰত পৰিশোধ কৰক। ধন্যবাদ।',
  },
};

export const languageCodes = Object.keys(languages) as LanguageCode[];

export const isLanguageCode = (value: string): value is LanguageCode => Object.hasOwn(languages, value);
