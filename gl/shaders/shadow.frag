// shadow.frag: the shadow pass writes depth only.
void main() {}
