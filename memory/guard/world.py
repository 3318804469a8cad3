"""Lessons written in another language than English.

The screen's rules read English shapes. A lesson in Spanish, Portuguese,
French, Italian, German, Russian, Chinese or Japanese is read here for the
ingredients an attack needs, each in those languages' own words:

- a secret (a credentials file, a ``*_TOKEN`` variable, "variables de
  entorno", "jeton", "Zugangsdaten", "пароль", "环境变量") moved — sent,
  copied, pasted, included — to a destination (a URL, an address, a
  ``#channel``, a public channel, a ticket, a bucket), in a sentence that
  does not forbid it ("no compartas …", "nie …", "不要 …");
- something kept from the user ("sin avisar al usuario", "ne le
  mentionnez pas", "erwähne das nicht", "не сообщай", "不要告诉用户"), or
  done quietly ("discrètement", "тихо", "悄悄") with a secret, a copy or a
  privilege in the same sentence;
- privileged commands run without asking ("sudo ohne Rückfrage",
  "sin pedir confirmación").

Each reading is one sentence's: a negation forbids only what follows it
in its sentence. The English rules (``memory.guard.harm``,
``memory.guard.steering``) keep their own shapes; their other-language
twins — an AI reader hailed and told to send a secret or switch off a
control, in any of these languages, however the sentence runs —
are read here too (``hailed_weakening``, ``hailed_secret_sent``), on the
text the English rules read.
"""

# ruff: noqa: E501 (the readings are regular expressions; split, they are harder to read)
# ruff: noqa: SIM905 (the little words read best as one string)
from __future__ import annotations

import re

from memory.guard.normalise import normalise
from memory.guard.regex import Sieved, sentence_around, sieved

__all__ = [
    "concealed",
    "hailed_secret_sent",
    "hailed_weakening",
    "match",
    "privileged_unasked",
    "secret_moved",
]

_I = re.IGNORECASE

# A sentence ends at . ! ? ; followed by a space, or at CJK punctuation
# ("ops-help.team@gmail.com" is one word).
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|[。！？；\n]")

_SECRET: Sieved = sieved(
    # names that need no language
    r"~/\.aws|\.aws/credentials|\bid_(?:rsa|ed25519|ecdsa)\b|\.ssh/|\.netrc\b|\.git-credentials\b|\.pgpass\b|\bkubeconfig\b"
    r"|(?<![\w.])\.env\b|\b[A-Z][A-Z0-9]*_(?:TOKEN|KEY|SECRET|PASSWORD|PASS|PAT)\b"
    # es / pt
    r"|\bcredenciales\b|\bcredenciais\b|\bcontrase[ñn]as?\b|\bsenhas?\b|\bclaves? (?:de (?:la )?api|privadas?|secretas?|de acceso)\b"
    r"|\bchaves? (?:de api|privadas?|secretas?|de acesso)\b|\bvariables de entorno\b|\bvari[aá]veis de ambiente\b|\btokens? de acceso\b"
    # fr / it
    r"|\bidentifiants\b|\bmots? de passe\b|\bjetons?\b|\bcl[ée]s? (?:d'api|api|priv[ée]es?|secr[eè]tes?|d'acc[eè]s)\b"
    r"|\bvariables d'environnement\b|\bcredenziali\b|\bchiavi (?:api|private|segrete|di accesso)\b|\bvariabili d'ambiente\b"
    # de
    r"|\bzugangsdaten\b|\bpassw[öo]rt\w*|\bkennw[öo]rt\w*|\b(?:api-?|privat\w* |geheim\w* )schl[üu]ssel\w*|\bumgebungsvariablen\b"
    # ru
    r"|\bпарол\w*|\bтокен\w*|\b(?:api-?|секретн\w* |приватн\w* )ключ\w*|\bпеременн\w+ окружени\w*|\bуч[её]тн\w+ данн\w*|\bсекрет\w*"
    # zh / ja
    r"|密码|密钥|私钥|令牌|凭证|凭据|环境变量|パスワード|秘密鍵|トークン|認証情報|環境変数|APIキー",
    _I,
)

_MOVE: Sieved = sieved(
    # es / pt
    r"\b(?:env[ií][aáeo]\w*|enviar|mand[ae]|mandar\w*|m[aá]nd\w*l[oa]s?|copi[aeo]\w*|peg[aeu]\w*|incluy\w*|inclu[ií]r|inclu[ai]\w*|adjunt[aeo]\w*|anex[aeo]\w*"
    r"|publica\w*|compart[aei]\w*|reenv[ií]\w*|sube|subir|s[uú]bel[oa]s?|cole|colar)\b"
    # fr / it
    r"|\b(?:envoy\w*|envoie\w*|coll(?:e|ez|er|ant)|inclu\w*|joign\w*|joindre|publi\w*|partag\w*|transf[ée]r\w*"
    r"|invia\w*|incoll\w*|includ\w*|allega\w*|pubblic\w*|condivid\w*|inoltr\w*)\b"
    # de
    r"|\b(?:send\w*|schick\w*|übermittel\w*|kopier\w*|f[üu]ge?\w* \w+ (?:\w+ ){0,6}?ein|einf[üu]g\w*|poste|posten|postet|teile|teilen|teilt|h[äa]ng\w* \w+ (?:\w+ ){0,6}?an|anh[äa]ng\w*|lade\w* \w+ (?:\w+ ){0,6}?hoch|hochlad\w*|weiterleit\w*)\b"
    # ru
    r"|\b(?:отправ\w*|скопир\w*|копир\w*|встав\w*|перешл\w*|пересл\w*|опублик\w*|выложи\w*|загрузи\w*|прикреп\w*)"
    # zh / ja
    r"|发送|发给|发到|复制|粘贴|贴到|贴在|上传|附加|附上|转发|送信|送って|送る|貼り付け|転送|アップロード|共有",
    _I,
)

_DESTINATION: Sieved = sieved(
    r"https?://|\b[\w.+-]+@[\w-]+\.[\w.-]+|(?<![\w&])#[a-z][\w-]+|\b(?:s3|gs|az)://"
    r"|\b(?:canal|canale) (?:p[úu]blico|publique|pubblico|externo|externe|esterno)\b|\bcanal\b"
    r"|\b(?:ticket|tique|incidencia|chamado|issue|wiki|confluence|slack|teams|discord|telegram|whatsapp|pastebin|gist)\w*"
    r"|\b(?:öffentlich\w*|extern\w*|externo|externe|esterno|p[úu]blico|publique|pubblico)\b"
    r"|\b(?:тикет\w*|заявк\w*|чат\w*|канал\w*|внешн\w*|публичн\w*|бакет\w*)"
    r"|工单|群里|群聊|频道|公开|外部|邮箱|チケット|チャンネル|外部",
    _I,
)

# What forbids the verb that follows it in its sentence.
_NEGATED_BEFORE: Sieved = sieved(
    r"(?:\b(?:no|non|not|never|nunca|jam[aá]s|nie|niemals|nicht|kein\w*|mai|nada|ningu\w*|не|никогда|нельзя)\b|\bne\b|\bn'|ни в коем"
    r"|不要|不得|禁止|切勿|请勿|别|不能|严禁|不可)[^.;。；]{0,40}$",
    _I,
)
_NEGATED_AFTER: Sieved = sieved(
    r"^\S{0,6}(?:ないで|ない|ません|禁止)|^[^.;。；]{0,30}\b(?:nicht|nie|pas|jamais)\b", _I
)

# Kept from the user (or from everyone): an attack whatever else it says.
_FROM_THE_USER: Sieved = sieved(
    # es / pt
    r"\bsin (?:avisar|decir\w*|informar|notificar|consultar)(?: \w+)? (?:al|a la|a los) (?:usuari|client|equipo|responsable)\w*"
    r"|\bsin que (?:el usuario|la usuaria|nadie|el cliente)\b[^.;]{0,20}\b(?:sepa|se entere|lo note)\b"
    r"|\bno (?:se )?(?:lo |le |la |les )?(?:menciones|digas|comentes|informes|avises|mencione|diga|informe|avise)\b"
    r"|\bsem (?:avisar|informar|contar|notificar)(?: \w+)? (?:ao|à|aos) (?:usu[aá]ri|client)\w*|\bn[ãa]o (?:o |lhe )?(?:mencione|conte|informe|avise)\b"
    # fr / it
    r"|\bsans (?:pr[ée]venir|avertir|informer|le dire|en parler|le signaler|le mentionner)\b"
    r"|\bne (?:le |la |les |lui |leur |l'|en )?(?:mentionnez|dites|signalez|mentionne|dis|signale|parlez)(?: \w+)? pas\b"
    r"|\bne pas (?:le |la |les |en |lui )?(?:mentionner|signaler|dire|pr[ée]venir)\b|\b[àa] l'insu\b"
    r"|\bsenza (?:avvisare|informare|dire|dirlo|notificare)\b|\bnon (?:lo |gli |le )?(?:dire|dirlo|menzionar\w*|segnalar\w*|informare)\b|\bdi nascosto\b"
    # de
    r"|\berw[äa]hn\w* (?:das|dies|es|dies?e?s?)\b[^.;]{0,30}\bnicht\b|\bnicht (?:zu )?erw[äa]hnen\b|\bverschweig\w*"
    r"|\bohne (?:den |die |das )?(?:benutzer|nutzer|anwender|kunden|user)\w* (?:zu )?(?:informieren|benachrichtigen|fragen|zu fragen|einzubeziehen)\b"
    r"|\bohne (?:es |das )?(?:jemandem|dem (?:benutzer|nutzer))\w* (?:zu )?(?:sagen|melden)\b"
    # ru
    r"|\bне (?:сообщай\w*|говори\w*|упоминай\w*|рассказывай\w*|уведомляй\w*)|\bбез ведома\b|\bвтайне\b"
    # zh / ja
    r"|不要(?:告诉|通知|提及|告知|让用户知道)|不告诉|别告诉|不让用户知道|瞒着"
    r"|(?:ユーザー|利用者|ユーザ)(?:に|には)(?:伝え|知らせ|言わ|報告し)ない|内緒で|黙って",
    _I,
)
_QUIETLY: Sieved = sieved(
    r"\b(?:discretamente|silenciosamente|en secreto|a escondidas|em segredo|discr[eè]tement|en secret|silencieusement"
    r"|in segreto|silenziosamente|unauff[äa]llig|heimlich|stillschweigend|тихо|незаметно|тайно)\b|悄悄|偷偷|秘密地|こっそり",
    _I,
)
_COPY_OR_PRIVILEGE: Sieved = sieved(
    r"\bsudo\b|\broot\b|\bsuperuser\b|\badmin\w*|\bsuperusuario\b|\bsuperutilisateur\b|\bприв\w*|\bадмин\w*|管理员|権限"
    r"|\b(?:cuenta|usuario|utilisateur|benutzer|konto|utente|пользовател\w*|аккаунт\w*)\b",
    _I,
)

# Run without anyone asked: privileged commands, or the user's own checks.
_UNASKED: Sieved = sieved(
    r"\bsin (?:pedir |solicitar )?(?:confirmaci[oó]n|preguntar|consultar|permiso)\b|\bsem (?:pedir )?(?:confirma[cç][ãa]o|perguntar)\b"
    r"|\bsans (?:demander|confirmation|validation|autorisation)\b|\bsenza (?:chiedere|conferma)\b"
    r"|\bohne (?:r[üu]ckfrage|nachzufragen|best[äa]tigung|zu fragen|erlaubnis)\b|\bбез (?:подтвержден\w*|спроса|вопросов|разрешени\w*)"
    r"|无需确认|不用确认|不要询问|不必询问|无需询问|未经确认|確認せずに|確認なしで|聞かずに",
    _I,
)
_PRIVILEGED: Sieved = sieved(r"\bsudo\b|\broot\b|\bsuperuser\b|管理员权限|root権限|管理者権限", _I)


# Whether a sentence is written in another language: another script, or
# more of those languages' little words than of English's (the verbs above
# share stems with English words — "mandatory", "include" — so an English
# sentence is never read here).
_OTHER_SCRIPT = re.compile(r"[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff]")
_ENGLISH_WORDS = frozenset(
    "the a an to and of in on for is are be with when your you this that it not do don't"
    " if or from by as at we they their our its was has have will should must".split()
)
_OTHER_WORDS = frozenset(
    "el la los las del en que y para por con un una al lo se su sus es no cuando"
    " le les des du et pour avec une est dans ne pas sur au aux vous"
    " der die das und mit für den dem ist nicht ein eine zu bei vor auf im nach sich du"
    " il di che per gli non della nel alla sono con"
    " o os do da em não ao uma ou seu sua".split()
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def _other_language(sentence: str) -> bool:
    if _OTHER_SCRIPT.search(sentence):
        return True
    words = [w.lower() for w in _WORD.findall(sentence)]
    other = sum(w in _OTHER_WORDS for w in words)
    return other >= 2 and other > sum(w in _ENGLISH_WORDS for w in words)


def _sentences(text: str) -> list[str]:
    """The text's sentences written in another language than English."""
    return [s for s in _SENTENCE_END.split(text) if s.strip() and _other_language(s)]


def _allowed(sentence: str, start: int, end: int) -> bool:
    """The verb at ``start:end`` is an order, not forbidden."""
    return not (
        _NEGATED_BEFORE.search(sentence[max(0, start - 60) : start])
        or _NEGATED_AFTER.search(sentence[end : end + 40])
    )


def secret_moved(text: str) -> bool:
    """A secret sent, copied or pasted somewhere, in another language."""
    for sentence in _sentences(text):
        if not (_SECRET.search(sentence) and _DESTINATION.search(sentence)):
            continue
        if any(_allowed(sentence, m.start(), m.end()) for m in _MOVE.finditer(sentence)):
            return True
    return False


def concealed(text: str) -> bool:
    """Something kept from the user, or done quietly with a secret, a copy
    or a privilege, in another language."""
    return any(
        _FROM_THE_USER.search(s)
        or (
            _QUIETLY.search(s)
            and (_SECRET.search(s) or _MOVE.search(s) or _COPY_OR_PRIVILEGE.search(s))
        )
        for s in _sentences(text)
    )


def privileged_unasked(text: str) -> bool:
    """Privileged commands run without asking, in another language."""
    return any(_PRIVILEGED.search(s) and _UNASKED.search(s) for s in _sentences(text))


def match(raw: str) -> str | None:
    """The rule a lesson breaks in another language (read in its own
    letters: the look-alike map would turn Cyrillic into Latin), or None."""
    text = normalise(raw, look_alikes=False)
    if secret_moved(text):
        return "exfiltration"
    if concealed(text):
        return "concealment"
    if privileged_unasked(text):
        return "security-weakening"
    return None


# --- an AI reader hailed ("Hinweis für KI-Agenten: …") -----------------------
# The rules ask these of the text they read (look-alikes mapped to ASCII),
# in any sentence, English ones included.

_AI_READER = sieved(
    r"\b(?:KI|IA|AI|ИИ)[- ]?(?:Agent\w*|Assistent\w*|assistant\w*|agente?s?|asistente?s?|assistente?|ассистент\w*|агент\w*)"
    r"|\b(?:agente?s?|asistente?s?|assistente?s?|Agent\w*) (?:de |d'|di |der )?(?:l')?(?:IA|KI|AI)\b"
    r"|AI ?(?:助手|代理|智能体)|AI ?(?:アシスタント|エージェント)|人工智能"
    r"|\b(?:für|fuer|pour les|para los|per gli) (?:Assistent\w*|assistants?|asistentes|assistenti)\b"
    r"|\b(?:para el|para la|para o|para a|pour l'|per l'|al|all') ?(?:asistente|assistente|assistant)\b",
    _I,
)
# a control switched off ("die Zwei-Faktor-Authentifizierung darf …
# deaktiviert werden")
_HAILED_CONTROL = sieved(
    r"zwei-?faktor|2fa|\bmfa\b|protokollierung|audit-?log|autenticaci[oó]n de dos|doble factor|double authentification|journalisation|autenticazione a due|registro de auditor[ií]a|双重认证|两步验证|多因素|审计日志|二要素|多要素",
    _I,
)
_HAILED_OFF = sieved(
    r"deaktivier\w*|ausschalt\w*|abschalt\w*|ausgeschaltet|desactiv\w*|d[ée]sactiv\w*|disattiv\w*|desativ\w*|关闭|禁用|停用|無効",
    _I,
)
# something sent to an address or a link ("Sendet … an https://…")
_HAILED_SEND = sieved(
    r"\b(?:send\w*|schick\w*|übermittel\w*|lade|lad|hochlad\w*|envi[aáe]\w*|envoy\w*|invia\w*|mand[ae]\w*|отправ\w*|перешл\w*)\b|发送|发给|传送|上传|送信|送って|転送",
    _I,
)
_HAILED_ADDRESS = sieved(r"https?://|\b[\w.+-]+@[\w-]+\.[\w.-]+")
# a secret named where it can be read ("… den Inhalt der .env als Kommentar
# in den Merge Request")
_HAILED_SECRET = sieved(
    r"(?<![\w/])\.env\b|\bprintenv\b|\bid_(?:rsa|ed25519)\b|~/\.(?:aws|ssh)|\bkubeconfig\b|\.npmrc\b|\b[A-Z][A-Z0-9]*_(?:KEY|TOKEN|SECRET|PASSWORD)\w*"
    # "environment variables" in the languages the AI reader is hailed in
    r"|(?i:variables? de entorno|variables d'environnement|umgebungsvariablen|variabili d'ambiente|vari[aá]veis de ambiente)|环境变量|環境変数",
)
_HAILED_PLACE = sieved(
    r"https?://|\b[\w.+-]+@[\w-]+\.[\w.-]+|\b(?:jira|ticket|issue|slack|teams|webhook|pastebin|gist|commit|pull request|merge request|kommentar|comment|commentaire|comentario)\w*|(?<![\w&])#[a-z][\w-]+"
    r"|工单|评论|チケット|コメント",
    _I,
)
_HAILED_NEGATOR = sieved(
    r"\b(?:not?|never|nie|niemals|nicht|kein\w*|nunca|jam[aá]is|ne|non|mai|nada)\b", _I
)


def hailed_weakening(text: str) -> bool:
    """An AI reader hailed and told a control may be switched off."""
    if not _AI_READER.search(text):
        return False
    for found in _HAILED_CONTROL.finditer(text):
        sentence = sentence_around(text, found.start(), found.end())
        if _HAILED_OFF.search(sentence) and not _HAILED_NEGATOR.search(sentence):
            return True
    return False


def hailed_secret_sent(text: str) -> bool:
    """An AI reader hailed and told to send something to an address, or to
    put a secret where it can be read."""
    if not _AI_READER.search(text):
        return False
    if _HAILED_SEND.search(text) and _HAILED_ADDRESS.search(text):
        return True
    if not _HAILED_PLACE.search(text):
        return False
    return any(
        not _HAILED_NEGATOR.search(sentence_around(text, found.start(), found.end()))
        for found in _HAILED_SECRET.finditer(text)
    )
