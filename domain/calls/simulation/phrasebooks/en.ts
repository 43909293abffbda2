import type { PhraseBook } from './phrase-book';

export const english: PhraseBook = {
  months: [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ],
  greeting: {
    collection: 'Hello {{first_name}}, this is {{agent_name}} calling about your loan.',
    lead_generation: 'Hello {{first_name}}, this is {{agent_name}}. Thank you for your interest in our loans.',
  },
  lines: {
    bounced: 'Your instalment of ₹{{emi_amount}} due on {{emi_due_date}} has bounced. When can you make the payment?',
    due: 'Your instalment of ₹{{emi_amount}} due on {{emi_due_date}} is still pending. When can you make the payment?',
    lead: 'You enquired with us about a loan on {{lead_date}}. May I tell you about an offer for you?',
  },
  acknowledgements: ['Yes, speaking.', 'Yes, tell me.', 'Hello, yes?'],
  fillers: ['Okay.', 'Hmm, go on.'],
  replies: {
    promise_to_pay: [
      'Okay, I will pay ₹{{emi_amount}} by {{promised_date}}.',
      "I'll make the payment by {{promised_date}}, don't worry.",
    ],
    request_more_time: [
      'Money is tight this month. Can I have time until {{promised_date}}?',
      'I need a little more time, my salary comes late. I can pay by {{promised_date}}.',
    ],
    already_paid: ['I have already paid it.', 'I paid it last week, please check once.'],
    dispute: [
      "That amount is not right, I don't agree with it.",
      'I have a complaint about this loan. Why is the amount so high?',
    ],
    wrong_number: ['Sorry, you have the wrong number.', 'There is nobody by that name here.'],
    callback_later: ["I'm busy right now, please call me tomorrow.", "I'm in a meeting, let's talk tomorrow."],
    interested: ["Yes, I'm interested. What is the interest rate?", 'Please tell me more about it.'],
    not_interested: ["No, I'm not interested.", "I don't need a loan right now, thank you."],
  },
  closings: {
    promise_to_pay: 'Thank you {{first_name}}. I have noted your payment of ₹{{emi_amount}} by {{promised_date}}.',
    request_more_time:
      'All right, I have noted {{promised_date}} as your payment date. Please pay on time to avoid late charges.',
    already_paid: 'Thank you. We will verify your payment and update your account.',
    dispute: 'I understand. I have registered your complaint and our team will contact you within two days.',
    wrong_number: 'Sorry for the trouble. Have a good day.',
    callback_later: 'Sure, we will call you tomorrow. Thank you.',
    interested: 'Great! Our advisor will call you with the full details. Thank you.',
    not_interested: 'No problem. Thank you for your time.',
  },
  farewells: ['Okay, thank you.', 'Okay, bye.'],
  voicemail: {
    collection:
      'Hello {{first_name}}, this is {{agent_name}} calling about your loan instalment. Please call us back as soon as you can. Thank you.',
    lead_generation:
      'Hello {{first_name}}, this is {{agent_name}} calling about the loan you enquired about. Please call us back. Thank you.',
  },
};
