/** Test data, not part of the console: an ORU^R01 (lab result) as an analyser sends it: segments end with carriage returns. */
export const ORU_R01 = [
  'MSH|^~\\&|ANALYSER|LAB|EHR|CLINIC|20240501101500||ORU^R01^ORU_R01|MSG00042|P|2.5|||AL|NE||UNICODE UTF-8',
  'PID|1||123456^^^CLINIC^MR||Nkosi^Thandi^M||19800214|F',
  'OBR|1|ORD1001|LAB2002|24331-1^Lipid panel^LN|||20240501093000',
  'OBX|1|NM|2093-3^Cholesterol^LN||5.2|mmol/L|<5.2|H|||F',
  'OBX|2|NM|2571-8^Triglyceride^LN||1.4|mmol/L|<1.7|N|||F',
  'OBX|3|NM|2085-9^HDL Cholesterol^LN||1.1|mmol/L|>1.0|N|||F',
  '',
].join('\r');
