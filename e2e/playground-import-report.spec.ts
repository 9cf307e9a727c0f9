import { expect, test } from '@playwright/test';
import { watchConsole } from './support/page-health.ts';
import { guardOrigin, makeDocx, makePdf, openPlayground, search, skipSample } from './support/playground.ts';

test('every file gets a line in the import report; binary content is refused by its bytes', async ({ page, context }) => {
  const outside = await guardOrigin(context);
  const errors = watchConsole(page);
  await skipSample(page);
  await openPlayground(page);
  expect(await page.locator('#file-input').getAttribute('accept')).toContain('.docx');
  const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(2000, 0)]);
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  await page.locator('#file-input').setInputFiles([
    { name: 'program.txt', mimeType: 'text/plain', buffer: elf },
    { name: 'picture.png', mimeType: 'image/png', buffer: png },
    { name: 'nothing.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) },
    { name: 'records.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify([{ id: 1, name: 'no text here' }])) },
    { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"a": ') },
    { name: 'post.mdx', mimeType: 'text/markdown', buffer: Buffer.from('---\ntitle: "Front Matter Title"\nauthor: Ada\ntags: [a, b]\n---\n# Heading\n\nOrreries model the solar system.\n') },
    { name: 'letter.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', buffer: makeDocx(['Dear reader,', 'Astrolabes measured the altitude of stars.'], 'A Letter') },
    { name: 'paged.pdf', mimeType: 'application/pdf', buffer: makePdf(['Sextants measure angles at sea.'], 'Paged PDF') },
  ]);
  const report = page.locator('#import-report');
  await expect(report).toContainText('8 files: 3 imported', { timeout: 60_000 });
  await expect(report).toContainText('program.txt: refused (binary) — binary content (ELF executable), not text');
  await expect(report).toContainText('picture.png: unsupported');
  await expect(report).toContainText('nothing.txt: nothing to import — the file is empty');
  await expect(report).toContainText('records.json: nothing to import — no records with a text field');
  await expect(report).toContainText('broken.json: failed');
  await expect(report).toContainText('letter.docx: imported — 1 document');
  await expect(report).toContainText(/passages?\)/);

  await search(page, 'orreries');
  await expect(page.locator('#hits li .hit-title').first()).toHaveText('Front Matter Title');
  await search(page, 'ada');
  await expect(page.locator('#search-status')).toContainText('No results'); // the front-matter block is not text
  await search(page, 'astrolabes');
  await expect(page.locator('#hits li .hit-title').first()).toHaveText('A Letter');
  await search(page, 'sextants');
  await expect(page.locator('#hits li .hit-pos').first()).toContainText('page 1');
  expect(errors).toEqual([]);
  expect(outside).toEqual([]);
});
