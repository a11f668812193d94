// A program for ./preset.yml: three conversions in parallel through the plugin's tool.
const [km, ft, m] = await Promise.all([
  tools.convert_length({ value: 26.2188, from: 'mi', to: 'km' }),
  tools.convert_length({ value: 1, from: 'mi', to: 'ft' }),
  tools.convert_length({ value: 42.195, from: 'km' }),
]);
return `A marathon is ${km.value} ${km.unit} (${m.value} ${m.unit}); a mile is ${ft.value} ${ft.unit}.`;
